// cpp_viewer: a C++ federate of the demo federation, written only against the IEEE 1516-2010
// C++ API (the standard's headers, librti1516e, libfedtime1516e), as a federate for any other
// RTI is written. It joins the federation next to the Rust example federates, subscribes to every
// vehicle, decodes what it reflects with the standard encoding helpers (Position and Velocity
// are `Vector2D`, a fixed record of two HLAfloat64BE; Sequence is HLAinteger64BE; Fuel and
// Range are HLAfloat64BE), and prints one line per vehicle per second of wall time. It takes
// part in the federation as the demo expects of every federate: it achieves every
// synchronization point it is announced, and saves and restores when asked (it has no state of
// its own). When every vehicle it saw has been removed, it resigns and prints a summary.
//
//   cpp_viewer [FEDERATION [SECONDS]]     (default: hlamesh-demo, 120 s at most)
//
// Network settings come from the HLAMESH_* environment, as for the Rust federates (defaults:
// this machine only). Build and run: see fed-examples/README.md.

#include <RTI/RTI1516.h>
#include <RTI/NullFederateAmbassador.h>
#include <RTI/encoding/BasicDataElements.h>
#include <RTI/encoding/HLAfixedRecord.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <thread>

using namespace rti1516e;

namespace {

std::string narrow(std::wstring const &w) { return std::string(w.begin(), w.end()); }

struct Vehicle {
  std::string name;
  std::string cls;
  double x = 0, y = 0, vx = 0, vy = 0, fuel = -1, range = -1;
  long long sequence = 0, reflections = 0, out_of_order = 0;
  bool removed = false;
};

// Vector2D: HLAfixedRecord { HLAfloat64BE x; HLAfloat64BE y; }.
bool decode_vector(VariableLengthData const &bytes, double &x, double &y) {
  HLAfloat64BE ex, ey;
  HLAfixedRecord record;
  record.appendElementPointer(&ex);
  record.appendElementPointer(&ey);
  try {
    record.decode(bytes);
  } catch (EncoderException const &) {
    return false;
  }
  x = ex.get();
  y = ey.get();
  return true;
}

class Viewer : public NullFederateAmbassador {
public:
  RTIambassador *rti = nullptr;
  std::map<ObjectClassHandle, std::string> classes;
  AttributeHandle position, velocity, sequence, fuel, range;
  std::map<ObjectInstanceHandle, Vehicle> vehicles;

  void discoverObjectInstance(ObjectInstanceHandle o, ObjectClassHandle c,
                              std::wstring const &name) override {
    Vehicle &v = vehicles[o];
    v.name = narrow(name);
    v.cls = classes.count(c) ? classes[c] : narrow(c.toString());
    std::printf("discovered %s (%s)\n", v.name.c_str(), v.cls.c_str());
  }

  void discoverObjectInstance(ObjectInstanceHandle o, ObjectClassHandle c,
                              std::wstring const &name, FederateHandle) override {
    discoverObjectInstance(o, c, name);
  }

  void reflect(ObjectInstanceHandle o, AttributeHandleValueMap const &values) {
    auto found = vehicles.find(o);
    if (found == vehicles.end()) return;
    Vehicle &v = found->second;
    ++v.reflections;
    for (auto const &kv : values) {
      try {
        if (kv.first == position) {
          decode_vector(kv.second, v.x, v.y);
        } else if (kv.first == velocity) {
          decode_vector(kv.second, v.vx, v.vy);
        } else if (kv.first == sequence) {
          HLAinteger64BE s;
          s.decode(kv.second);
          if (s.get() <= v.sequence) ++v.out_of_order; // e.g. after a federation restore
          v.sequence = s.get();
        } else if (kv.first == fuel || kv.first == range) {
          HLAfloat64BE f;
          f.decode(kv.second);
          (kv.first == fuel ? v.fuel : v.range) = f.get();
        }
      } catch (EncoderException const &e) {
        std::fprintf(stderr, "cpp_viewer: %s: undecodable value: %s\n", v.name.c_str(),
                     narrow(e.what()).c_str());
      }
    }
  }

  void reflectAttributeValues(ObjectInstanceHandle o, AttributeHandleValueMap const &values,
                              VariableLengthData const &, OrderType, TransportationType,
                              SupplementalReflectInfo) override {
    reflect(o, values);
  }

  void reflectAttributeValues(ObjectInstanceHandle o, AttributeHandleValueMap const &values,
                              VariableLengthData const &, OrderType, TransportationType,
                              LogicalTime const &, OrderType, SupplementalReflectInfo) override {
    reflect(o, values);
  }

  void reflectAttributeValues(ObjectInstanceHandle o, AttributeHandleValueMap const &values,
                              VariableLengthData const &, OrderType, TransportationType,
                              LogicalTime const &, OrderType, MessageRetractionHandle,
                              SupplementalReflectInfo) override {
    reflect(o, values);
  }

  void removeObjectInstance(ObjectInstanceHandle o, VariableLengthData const &, OrderType,
                            SupplementalRemoveInfo) override {
    auto found = vehicles.find(o);
    if (found != vehicles.end()) {
      found->second.removed = true;
      std::printf("removed %s\n", found->second.name.c_str());
    }
  }

  void removeObjectInstance(ObjectInstanceHandle o, VariableLengthData const &tag, OrderType s,
                            LogicalTime const &, OrderType, SupplementalRemoveInfo i) override {
    removeObjectInstance(o, tag, s, i);
  }

  void removeObjectInstance(ObjectInstanceHandle o, VariableLengthData const &tag, OrderType s,
                            LogicalTime const &, OrderType, MessageRetractionHandle,
                            SupplementalRemoveInfo i) override {
    removeObjectInstance(o, tag, s, i);
  }

  // The demo's engines synchronize on federation-wide points: take part in each.
  void announceSynchronizationPoint(std::wstring const &label,
                                    VariableLengthData const &) override {
    std::printf("synchronization point %s\n", narrow(label).c_str());
    rti->synchronizationPointAchieved(label);
  }

  // Nothing of this federate's own needs saving; it answers so the federation can save.
  void initiateFederateSave(std::wstring const &label) override {
    std::printf("saving %s\n", narrow(label).c_str());
    rti->federateSaveBegun();
    rti->federateSaveComplete();
  }

  void initiateFederateSave(std::wstring const &label, LogicalTime const &) override {
    initiateFederateSave(label);
  }

  void initiateFederateRestore(std::wstring const &label, std::wstring const &,
                               FederateHandle) override {
    std::printf("restoring %s\n", narrow(label).c_str());
    rti->federateRestoreComplete();
  }

  bool all_removed() const {
    if (vehicles.empty()) return false;
    for (auto const &kv : vehicles) {
      if (!kv.second.removed) return false;
    }
    return true;
  }
};

} // namespace

int main(int argc, char **argv) {
  std::wstring federation = L"hlamesh-demo";
  if (argc > 1) {
    std::string f = argv[1];
    federation = std::wstring(f.begin(), f.end());
  }
  int seconds = argc > 2 ? std::atoi(argv[2]) : 120;

  Viewer viewer;
  std::unique_ptr<RTIambassador> rti;
  try {
    RTIambassadorFactory factory;
    rti = factory.createRTIambassador();
    viewer.rti = rti.get();
    rti->connect(viewer, HLA_EVOKED);

    // The federation may not exist yet: start this viewer first, then the demo.
    auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (;;) {
      try {
        rti->joinFederationExecution(L"cpp-viewer", L"CppViewer", federation);
        break;
      } catch (FederationExecutionDoesNotExist const &) {
        if (std::chrono::steady_clock::now() > give_up) throw;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
    }
    std::printf("joined %s\n", narrow(federation).c_str());

    ObjectClassHandle vehicle = rti->getObjectClassHandle(L"Vehicle");
    ObjectClassHandle car = rti->getObjectClassHandle(L"Vehicle.Car");
    ObjectClassHandle aircraft = rti->getObjectClassHandle(L"Vehicle.Aircraft");
    viewer.classes[vehicle] = "Vehicle";
    viewer.classes[car] = "Car";
    viewer.classes[aircraft] = "Aircraft";
    viewer.position = rti->getAttributeHandle(vehicle, L"Position");
    viewer.velocity = rti->getAttributeHandle(vehicle, L"Velocity");
    viewer.sequence = rti->getAttributeHandle(vehicle, L"Sequence");
    viewer.fuel = rti->getAttributeHandle(car, L"Fuel");
    viewer.range = rti->getAttributeHandle(car, L"Range");

    AttributeHandleSet common{viewer.position, viewer.velocity, viewer.sequence};
    AttributeHandleSet cars = common;
    cars.insert(viewer.fuel);
    cars.insert(viewer.range);
    rti->subscribeObjectClassAttributes(car, cars);
    rti->subscribeObjectClassAttributes(aircraft, common);

    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    auto next_print = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (!viewer.all_removed() && std::chrono::steady_clock::now() < end) {
      rti->evokeMultipleCallbacks(0.05, 0.2);
      if (std::chrono::steady_clock::now() >= next_print) {
        next_print += std::chrono::seconds(1);
        for (auto const &kv : viewer.vehicles) {
          Vehicle const &v = kv.second;
          if (v.removed) continue;
          std::printf("%-12s %-8s seq %6lld  pos (%9.2f, %9.2f) m  vel (%6.2f, %6.2f) m/s",
                      v.name.c_str(), v.cls.c_str(), v.sequence, v.x, v.y, v.vx, v.vy);
          if (v.fuel >= 0) std::printf("  fuel %6.2f l  range %8.1f m", v.fuel, v.range);
          std::printf("\n");
        }
        std::fflush(stdout);
      }
    }
    rti->resignFederationExecution(CANCEL_THEN_DELETE_THEN_DIVEST);
    rti->disconnect();
  } catch (Exception const &e) {
    std::fprintf(stderr, "cpp_viewer: %s\n", narrow(e.what()).c_str());
    return 1;
  }

  std::printf("summary:\n");
  for (auto const &kv : viewer.vehicles) {
    Vehicle const &v = kv.second;
    std::printf("  %-12s %-8s %lld reflections, last sequence %lld, %lld out of order, "
                "position (%.10g, %.10g), velocity (%.10g, %.10g), fuel %.10g, range %.10g\n",
                v.name.c_str(), v.cls.c_str(), v.reflections, v.sequence, v.out_of_order, v.x,
                v.y, v.vx, v.vy, v.fuel, v.range);
  }
  return viewer.vehicles.empty() ? 1 : 0;
}
