// fedshell: a C++ federate for the multi-process tests (cpp/tests/sdk_federation.rs), written
// only against the standard's API, as a user writes one, and built by the tests from the
// installed SDK with pkg-config (or CMake's find_package).
//
// It connects, then reads one command per line on stdin and prints one JSON line per callback
// and per command result on stdout, so a test can drive several federate processes step by
// step and await each outcome instead of sleeping.
//
//   fedshell [--model evoked|immediate]
//
// Network settings come from the HLAMESH_* environment (the README's settings); the local
// settings designator is empty, as for a federate written for another RTI.
//
// Commands (CLASS, ATTR, PARAM are FOM names; OBJ is the 16 hex digits of an object instance
// handle's encoding, as printed by `registered` and `discover`; HEX is a value's bytes; T a
// float64 logical time):
//   create FED FOMPATH | join FED NAME | resign | destroy FED | disconnect
//   publish CLASS ATTR,ATTR | subscribe CLASS ATTR,ATTR | publish-ia CLASS | subscribe-ia CLASS PARAM,PARAM
//   register CLASS | update OBJ ATTR=HEX,ATTR=HEX [T] | send CLASS PARAM=HEX,… [T]
//   request-update OBJ ATTR,ATTR | delete OBJ | tso OBJ ATTR,ATTR (timestamp order)
//   regulate LOOKAHEAD | constrain | tar T | tara T | ner T | nera T | query-time
//   auto-advance STEP UNTIL  (each grant below UNTIL requests the next from inside the callback)
//   echo SRC OWN  (each reflection of SRC is sent on as an update of OWN from inside the
//                  callback)
//   evoke-in-callback   (the next reflection calls evokeCallback from inside the callback)
//   sync LABEL | achieve LABEL | save LABEL | save-begun | save-complete
//   restore LABEL | restore-complete
//   divest OBJ ATTRS | negotiate OBJ ATTRS | confirm OBJ ATTRS | acquire OBJ ATTRS
//   acquire-if OBJ ATTRS | owned OBJ ATTR | query-owner OBJ ATTR
//   enable-callbacks | disable-callbacks | exit
//
// Every command answers {"event":"ok","cmd":…} or {"event":"failed","cmd":…,"exception":
// "<standard class name>","message":…}; the exception is caught by its own class.

#include <RTI/RTI1516.h>
#include <RTI/NullFederateAmbassador.h>
#include <RTI/time/HLAfloat64Interval.h>
#include <RTI/time/HLAfloat64Time.h>

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "exception_names.h"

using namespace rti1516e;

namespace {

// ---- text ----------------------------------------------------------------------------------

std::wstring wide(std::string const &s) { return std::wstring(s.begin(), s.end()); }

std::string narrow(std::wstring const &w) {
  std::string out;
  for (wchar_t c : w) {
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  return out;
}

std::string json_str(std::string const &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string hex(void const *data, size_t n) {
  static char const digits[] = "0123456789abcdef";
  std::string out;
  auto const *p = static_cast<unsigned char const *>(data);
  for (size_t i = 0; i < n; ++i) {
    out += digits[p[i] >> 4];
    out += digits[p[i] & 15];
  }
  return out;
}

std::string hex(VariableLengthData const &v) { return hex(v.data(), v.size()); }

VariableLengthData unhex(std::string const &s) {
  if (s.size() % 2 != 0) throw std::runtime_error("odd hex length: " + s);
  std::vector<unsigned char> bytes;
  for (size_t i = 0; i < s.size(); i += 2) {
    bytes.push_back(static_cast<unsigned char>(std::stoul(s.substr(i, 2), nullptr, 16)));
  }
  return VariableLengthData(bytes.data(), bytes.size());
}

std::vector<std::string> split(std::string const &s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, sep)) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::string time_str(double t) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", t);
  return buf;
}

double time_of(LogicalTime const &t) {
  return dynamic_cast<HLAfloat64Time const &>(t).getTime();
}

std::string order_str(OrderType o) { return o == TIMESTAMP ? "TSO" : "RO"; }

// ---- output --------------------------------------------------------------------------------

std::mutex print_lock;

void print(std::string const &line) {
  std::lock_guard<std::mutex> g(print_lock);
  std::fputs(line.c_str(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

// The standard class of the exception being handled (call inside a catch block).
std::string current_exception_class(std::string &message) {
  try {
    throw;
  }
#define FEDSHELL_CATCH(Name)                                                                     \
  catch (rti1516e::Name const &e) {                                                              \
    message = narrow(e.what());                                                                  \
    return #Name;                                                                                \
  }
  FEDSHELL_EACH_EXCEPTION(FEDSHELL_CATCH)
#undef FEDSHELL_CATCH
  catch (rti1516e::Exception const &e) {
    message = narrow(e.what());
    return "rti1516e::Exception (unknown class)";
  } catch (std::exception const &e) {
    message = e.what();
    return "std::exception";
  } catch (...) {
    message = "";
    return "unknown";
  }
}

// ---- the federate --------------------------------------------------------------------------

struct Names {
  std::mutex lock;
  std::map<ObjectClassHandle, std::string> classes;
  std::map<AttributeHandle, std::string> attributes;
  std::map<InteractionClassHandle, std::string> interactions;
  std::map<ParameterHandle, std::string> parameters;
  std::map<std::string, ObjectInstanceHandle> objects;  // by hex
  std::map<std::string, ObjectClassHandle> object_class; // by hex
  std::map<std::string, AttributeHandleValueMap> last_values; // own objects, by hex
};

std::string obj_hex(ObjectInstanceHandle h) { return hex(h.encode()); }

class Shell : public NullFederateAmbassador {
public:
  std::unique_ptr<RTIambassador> rti;
  Names names;
  std::atomic<bool> evoke_in_callback{false};
  std::mutex echo_lock;
  std::string echo_from; // hex of the object whose reflections are echoed, or empty
  std::string echo_to;   // hex of the own object they are sent on as
  std::atomic<bool> auto_advance{false};
  double step = 0, until = 0;

  std::string attr_json(AttributeHandleValueMap const &m) {
    std::lock_guard<std::mutex> g(names.lock);
    std::string out = "{";
    for (auto const &kv : m) {
      if (out.size() > 1) out += ",";
      auto n = names.attributes.find(kv.first);
      out += json_str(n == names.attributes.end() ? narrow(kv.first.toString()) : n->second) +
             ":" + json_str(hex(kv.second));
    }
    return out + "}";
  }

  std::string attr_set_json(AttributeHandleSet const &s) {
    std::lock_guard<std::mutex> g(names.lock);
    std::string out = "[";
    for (auto const &a : s) {
      if (out.size() > 1) out += ",";
      auto n = names.attributes.find(a);
      out += json_str(n == names.attributes.end() ? narrow(a.toString()) : n->second);
    }
    return out + "]";
  }

  void reflect(ObjectInstanceHandle o, AttributeHandleValueMap const &values,
               VariableLengthData const &tag, OrderType sent, std::string const &time,
               std::string const &received) {
    print("{\"event\":\"reflect\",\"object\":" + json_str(obj_hex(o)) +
          ",\"values\":" + attr_json(values) + ",\"tag\":" + json_str(hex(tag)) +
          ",\"sent\":" + json_str(order_str(sent)) + ",\"time\":" + time +
          ",\"order\":" + json_str(received) + "}");
    if (evoke_in_callback.exchange(false)) {
      try {
        rti->evokeCallback(0.0);
        print("{\"event\":\"callback_call\",\"result\":\"no exception\"}");
      } catch (...) {
        std::string message;
        std::string cls = current_exception_class(message);
        print("{\"event\":\"callback_call\",\"exception\":" + json_str(cls) +
              ",\"message\":" + json_str(message) + "}");
      }
    }
    std::string target;
    {
      std::lock_guard<std::mutex> g(echo_lock);
      if (echo_from == obj_hex(o)) target = echo_to;
    }
    if (!target.empty()) {
      try {
        ObjectInstanceHandle own;
        {
          std::lock_guard<std::mutex> g(names.lock);
          own = names.objects.at(target);
        }
        rti->updateAttributeValues(own, values, tag);
        print("{\"event\":\"echoed\",\"object\":" + json_str(target) + "}");
      } catch (...) {
        std::string message;
        std::string cls = current_exception_class(message);
        print("{\"event\":\"echo_failed\",\"exception\":" + json_str(cls) +
              ",\"message\":" + json_str(message) + "}");
      }
    }
  }

  // -- callbacks --

  void connectionLost(std::wstring const &fault) override {
    print("{\"event\":\"connection_lost\",\"fault\":" + json_str(narrow(fault)) + "}");
  }

  void discoverObjectInstance(ObjectInstanceHandle o, ObjectClassHandle c,
                              std::wstring const &name) override {
    std::string cls;
    {
      std::lock_guard<std::mutex> g(names.lock);
      names.objects[obj_hex(o)] = o;
      names.object_class[obj_hex(o)] = c;
      auto n = names.classes.find(c);
      cls = n == names.classes.end() ? narrow(c.toString()) : n->second;
    }
    print("{\"event\":\"discover\",\"object\":" + json_str(obj_hex(o)) +
          ",\"class\":" + json_str(cls) + ",\"name\":" + json_str(narrow(name)) + "}");
  }

  void discoverObjectInstance(ObjectInstanceHandle o, ObjectClassHandle c,
                              std::wstring const &name, FederateHandle) override {
    discoverObjectInstance(o, c, name);
  }

  void reflectAttributeValues(ObjectInstanceHandle o, AttributeHandleValueMap const &v,
                              VariableLengthData const &tag, OrderType sent, TransportationType,
                              SupplementalReflectInfo) override {
    reflect(o, v, tag, sent, "null", "RO");
  }

  void reflectAttributeValues(ObjectInstanceHandle o, AttributeHandleValueMap const &v,
                              VariableLengthData const &tag, OrderType sent, TransportationType,
                              LogicalTime const &t, OrderType received,
                              SupplementalReflectInfo) override {
    reflect(o, v, tag, sent, time_str(time_of(t)), order_str(received));
  }

  void reflectAttributeValues(ObjectInstanceHandle o, AttributeHandleValueMap const &v,
                              VariableLengthData const &tag, OrderType sent, TransportationType,
                              LogicalTime const &t, OrderType received, MessageRetractionHandle,
                              SupplementalReflectInfo) override {
    reflect(o, v, tag, sent, time_str(time_of(t)), order_str(received));
  }

  void interaction(InteractionClassHandle ic, ParameterHandleValueMap const &p,
                   VariableLengthData const &tag, std::string const &time,
                   std::string const &order) {
    std::string out;
    {
      std::lock_guard<std::mutex> g(names.lock);
      auto n = names.interactions.find(ic);
      out = "{\"event\":\"interaction\",\"class\":" +
            json_str(n == names.interactions.end() ? narrow(ic.toString()) : n->second) +
            ",\"params\":{";
      bool first = true;
      for (auto const &kv : p) {
        if (!first) out += ",";
        first = false;
        auto pn = names.parameters.find(kv.first);
        out += json_str(pn == names.parameters.end() ? narrow(kv.first.toString())
                                                      : pn->second) +
               ":" + json_str(hex(kv.second));
      }
    }
    print(out + "},\"tag\":" + json_str(hex(tag)) + ",\"time\":" + time +
          ",\"order\":" + json_str(order) + "}");
  }

  void receiveInteraction(InteractionClassHandle ic, ParameterHandleValueMap const &p,
                          VariableLengthData const &tag, OrderType, TransportationType,
                          SupplementalReceiveInfo) override {
    interaction(ic, p, tag, "null", "RO");
  }

  void receiveInteraction(InteractionClassHandle ic, ParameterHandleValueMap const &p,
                          VariableLengthData const &tag, OrderType, TransportationType,
                          LogicalTime const &t, OrderType received,
                          SupplementalReceiveInfo) override {
    interaction(ic, p, tag, time_str(time_of(t)), order_str(received));
  }

  void receiveInteraction(InteractionClassHandle ic, ParameterHandleValueMap const &p,
                          VariableLengthData const &tag, OrderType, TransportationType,
                          LogicalTime const &t, OrderType received, MessageRetractionHandle,
                          SupplementalReceiveInfo) override {
    interaction(ic, p, tag, time_str(time_of(t)), order_str(received));
  }

  void removeObjectInstance(ObjectInstanceHandle o, VariableLengthData const &tag, OrderType,
                            SupplementalRemoveInfo) override {
    print("{\"event\":\"remove\",\"object\":" + json_str(obj_hex(o)) +
          ",\"tag\":" + json_str(hex(tag)) + "}");
  }

  void removeObjectInstance(ObjectInstanceHandle o, VariableLengthData const &tag, OrderType,
                            LogicalTime const &t, OrderType, SupplementalRemoveInfo) override {
    print("{\"event\":\"remove\",\"object\":" + json_str(obj_hex(o)) +
          ",\"tag\":" + json_str(hex(tag)) + ",\"time\":" + time_str(time_of(t)) + "}");
  }

  void removeObjectInstance(ObjectInstanceHandle o, VariableLengthData const &tag, OrderType sent,
                            LogicalTime const &t, OrderType received, MessageRetractionHandle,
                            SupplementalRemoveInfo info) override {
    removeObjectInstance(o, tag, sent, t, received, info);
  }

  void provideAttributeValueUpdate(ObjectInstanceHandle o, AttributeHandleSet const &attrs,
                                   VariableLengthData const &tag) override {
    print("{\"event\":\"provide\",\"object\":" + json_str(obj_hex(o)) +
          ",\"attrs\":" + attr_set_json(attrs) + ",\"tag\":" + json_str(hex(tag)) + "}");
    // Answer from inside the callback with the values last sent for the asked attributes.
    AttributeHandleValueMap values;
    {
      std::lock_guard<std::mutex> g(names.lock);
      auto last = names.last_values.find(obj_hex(o));
      if (last == names.last_values.end()) return;
      for (auto const &a : attrs) {
        auto v = last->second.find(a);
        if (v != last->second.end()) values.insert(*v);
      }
    }
    try {
      rti->updateAttributeValues(o, values, VariableLengthData("provided", 8));
    } catch (...) {
      std::string message;
      std::string cls = current_exception_class(message);
      print("{\"event\":\"provide_failed\",\"exception\":" + json_str(cls) + "}");
    }
  }

  void timeRegulationEnabled(LogicalTime const &t) override {
    print("{\"event\":\"regulation_enabled\",\"time\":" + time_str(time_of(t)) + "}");
  }

  void timeConstrainedEnabled(LogicalTime const &t) override {
    print("{\"event\":\"constrained_enabled\",\"time\":" + time_str(time_of(t)) + "}");
  }

  void timeAdvanceGrant(LogicalTime const &t) override {
    double now = time_of(t);
    print("{\"event\":\"grant\",\"time\":" + time_str(now) + "}");
    if (auto_advance && now + step <= until) {
      try {
        rti->timeAdvanceRequest(HLAfloat64Time(now + step));
      } catch (...) {
        std::string message;
        std::string cls = current_exception_class(message);
        print("{\"event\":\"advance_failed\",\"exception\":" + json_str(cls) +
              ",\"message\":" + json_str(message) + "}");
      }
    }
  }

  void synchronizationPointRegistrationSucceeded(std::wstring const &label) override {
    print("{\"event\":\"sync_registered\",\"label\":" + json_str(narrow(label)) + "}");
  }

  void synchronizationPointRegistrationFailed(std::wstring const &label,
                                              SynchronizationPointFailureReason) override {
    print("{\"event\":\"sync_register_failed\",\"label\":" + json_str(narrow(label)) + "}");
  }

  void announceSynchronizationPoint(std::wstring const &label,
                                    VariableLengthData const &tag) override {
    print("{\"event\":\"announce\",\"label\":" + json_str(narrow(label)) +
          ",\"tag\":" + json_str(hex(tag)) + "}");
  }

  void federationSynchronized(std::wstring const &label,
                              FederateHandleSet const &failed) override {
    print("{\"event\":\"synchronized\",\"label\":" + json_str(narrow(label)) +
          ",\"failed\":" + std::to_string(failed.size()) + "}");
  }

  void initiateFederateSave(std::wstring const &label) override {
    print("{\"event\":\"initiate_save\",\"label\":" + json_str(narrow(label)) + "}");
  }

  void initiateFederateSave(std::wstring const &label, LogicalTime const &t) override {
    print("{\"event\":\"initiate_save\",\"label\":" + json_str(narrow(label)) +
          ",\"time\":" + time_str(time_of(t)) + "}");
  }

  void federationSaved() override { print("{\"event\":\"saved\"}"); }

  void federationNotSaved(SaveFailureReason) override { print("{\"event\":\"not_saved\"}"); }

  void requestFederationRestoreSucceeded(std::wstring const &label) override {
    print("{\"event\":\"restore_request_succeeded\",\"label\":" + json_str(narrow(label)) +
          "}");
  }

  void requestFederationRestoreFailed(std::wstring const &label) override {
    print("{\"event\":\"restore_request_failed\",\"label\":" + json_str(narrow(label)) + "}");
  }

  void federationRestoreBegun() override { print("{\"event\":\"restore_begun\"}"); }

  void initiateFederateRestore(std::wstring const &label, std::wstring const &name,
                               FederateHandle) override {
    print("{\"event\":\"initiate_restore\",\"label\":" + json_str(narrow(label)) +
          ",\"name\":" + json_str(narrow(name)) + "}");
  }

  void federationRestored() override { print("{\"event\":\"restored\"}"); }

  void federationNotRestored(RestoreFailureReason) override {
    print("{\"event\":\"not_restored\"}");
  }

  void requestAttributeOwnershipAssumption(ObjectInstanceHandle o, AttributeHandleSet const &a,
                                           VariableLengthData const &) override {
    print("{\"event\":\"assumption_request\",\"object\":" + json_str(obj_hex(o)) +
          ",\"attrs\":" + attr_set_json(a) + "}");
  }

  void requestDivestitureConfirmation(ObjectInstanceHandle o,
                                      AttributeHandleSet const &a) override {
    print("{\"event\":\"confirm_request\",\"object\":" + json_str(obj_hex(o)) +
          ",\"attrs\":" + attr_set_json(a) + "}");
  }

  void attributeOwnershipAcquisitionNotification(ObjectInstanceHandle o,
                                                 AttributeHandleSet const &a,
                                                 VariableLengthData const &) override {
    print("{\"event\":\"acquired\",\"object\":" + json_str(obj_hex(o)) +
          ",\"attrs\":" + attr_set_json(a) + "}");
  }

  void attributeOwnershipUnavailable(ObjectInstanceHandle o,
                                     AttributeHandleSet const &a) override {
    print("{\"event\":\"unavailable\",\"object\":" + json_str(obj_hex(o)) +
          ",\"attrs\":" + attr_set_json(a) + "}");
  }

  void requestAttributeOwnershipRelease(ObjectInstanceHandle o, AttributeHandleSet const &a,
                                        VariableLengthData const &) override {
    print("{\"event\":\"release_request\",\"object\":" + json_str(obj_hex(o)) +
          ",\"attrs\":" + attr_set_json(a) + "}");
  }

  void informAttributeOwnership(ObjectInstanceHandle o, AttributeHandle a,
                                FederateHandle owner) override {
    AttributeHandleSet s;
    s.insert(a);
    print("{\"event\":\"owner\",\"object\":" + json_str(obj_hex(o)) +
          ",\"attrs\":" + attr_set_json(s) + ",\"owner\":" + json_str(hex(owner.encode())) +
          "}");
  }

  void attributeIsNotOwned(ObjectInstanceHandle o, AttributeHandle a) override {
    AttributeHandleSet s;
    s.insert(a);
    print("{\"event\":\"owner\",\"object\":" + json_str(obj_hex(o)) +
          ",\"attrs\":" + attr_set_json(s) + ",\"owner\":null}");
  }

  // -- commands --

  ObjectInstanceHandle object(std::string const &h) {
    std::lock_guard<std::mutex> g(names.lock);
    auto o = names.objects.find(h);
    if (o == names.objects.end()) throw std::runtime_error("unknown object " + h);
    return o->second;
  }

  ObjectClassHandle class_of(std::string const &h) {
    std::lock_guard<std::mutex> g(names.lock);
    return names.object_class.at(h);
  }

  AttributeHandleSet attrs(ObjectClassHandle c, std::string const &list) {
    AttributeHandleSet s;
    for (auto const &n : split(list, ',')) {
      AttributeHandle a = rti->getAttributeHandle(c, wide(n));
      std::lock_guard<std::mutex> g(names.lock);
      names.attributes[a] = n;
      s.insert(a);
    }
    return s;
  }

  ObjectClassHandle object_class(std::string const &name) {
    ObjectClassHandle c = rti->getObjectClassHandle(wide(name));
    std::lock_guard<std::mutex> g(names.lock);
    names.classes[c] = name;
    return c;
  }

  InteractionClassHandle interaction_class(std::string const &name) {
    InteractionClassHandle c = rti->getInteractionClassHandle(wide(name));
    std::lock_guard<std::mutex> g(names.lock);
    names.interactions[c] = name;
    return c;
  }

  void run(std::string const &line) {
    std::vector<std::string> w = split(line, ' ');
    if (w.empty()) return;
    std::string const &c = w[0];
    auto arg = [&](size_t i) -> std::string const & {
      if (i >= w.size()) throw std::runtime_error("missing argument " + std::to_string(i));
      return w[i];
    };
    std::string extra;
    if (c == "create") {
      std::vector<std::wstring> modules{wide(arg(2))};
      rti->createFederationExecution(wide(arg(1)), modules);
    } else if (c == "join") {
      FederateHandle h = rti->joinFederationExecution(wide(arg(2)), L"fedshell", wide(arg(1)));
      extra = ",\"handle\":" + json_str(hex(h.encode()));
    } else if (c == "resign") {
      rti->resignFederationExecution(CANCEL_THEN_DELETE_THEN_DIVEST);
    } else if (c == "destroy") {
      rti->destroyFederationExecution(wide(arg(1)));
    } else if (c == "disconnect") {
      rti->disconnect();
    } else if (c == "publish") {
      ObjectClassHandle oc = object_class(arg(1));
      rti->publishObjectClassAttributes(oc, attrs(oc, arg(2)));
    } else if (c == "subscribe") {
      ObjectClassHandle oc = object_class(arg(1));
      rti->subscribeObjectClassAttributes(oc, attrs(oc, arg(2)));
    } else if (c == "publish-ia" || c == "subscribe-ia") {
      InteractionClassHandle ic = interaction_class(arg(1));
      if (c == "publish-ia") {
        rti->publishInteractionClass(ic);
      } else {
        for (auto const &n : split(arg(2), ',')) {
          ParameterHandle p = rti->getParameterHandle(ic, wide(n));
          std::lock_guard<std::mutex> g(names.lock);
          names.parameters[p] = n;
        }
        rti->subscribeInteractionClass(ic);
      }
    } else if (c == "register") {
      ObjectClassHandle oc = object_class(arg(1));
      ObjectInstanceHandle o = rti->registerObjectInstance(oc);
      std::lock_guard<std::mutex> g(names.lock);
      names.objects[obj_hex(o)] = o;
      names.object_class[obj_hex(o)] = oc;
      extra = ",\"object\":" + json_str(obj_hex(o));
    } else if (c == "update") {
      ObjectInstanceHandle o = object(arg(1));
      ObjectClassHandle oc = class_of(arg(1));
      AttributeHandleValueMap values;
      for (auto const &kv : split(arg(2), ',')) {
        auto eq = kv.find('=');
        AttributeHandle a = rti->getAttributeHandle(oc, wide(kv.substr(0, eq)));
        {
          std::lock_guard<std::mutex> g(names.lock);
          names.attributes[a] = kv.substr(0, eq);
        }
        values[a] = unhex(kv.substr(eq + 1));
      }
      VariableLengthData tag("cpp", 3);
      if (w.size() > 3) {
        rti->updateAttributeValues(o, values, tag, HLAfloat64Time(std::stod(w[3])));
      } else {
        rti->updateAttributeValues(o, values, tag);
      }
      std::lock_guard<std::mutex> g(names.lock);
      for (auto const &kv : values) names.last_values[arg(1)][kv.first] = kv.second;
    } else if (c == "send") {
      InteractionClassHandle ic = interaction_class(arg(1));
      ParameterHandleValueMap values;
      for (auto const &kv : split(arg(2), ',')) {
        auto eq = kv.find('=');
        ParameterHandle p = rti->getParameterHandle(ic, wide(kv.substr(0, eq)));
        values[p] = unhex(kv.substr(eq + 1));
      }
      VariableLengthData tag("cpp", 3);
      if (w.size() > 3) {
        rti->sendInteraction(ic, values, tag, HLAfloat64Time(std::stod(w[3])));
      } else {
        rti->sendInteraction(ic, values, tag);
      }
    } else if (c == "request-update") {
      ObjectInstanceHandle o = object(arg(1));
      rti->requestAttributeValueUpdate(o, attrs(class_of(arg(1)), arg(2)),
                                       VariableLengthData("please", 6));
    } else if (c == "tso") {
      rti->changeAttributeOrderType(object(arg(1)), attrs(class_of(arg(1)), arg(2)), TIMESTAMP);
    } else if (c == "delete") {
      rti->deleteObjectInstance(object(arg(1)), VariableLengthData("bye", 3));
    } else if (c == "regulate") {
      rti->enableTimeRegulation(HLAfloat64Interval(std::stod(arg(1))));
    } else if (c == "constrain") {
      rti->enableTimeConstrained();
    } else if (c == "tar") {
      rti->timeAdvanceRequest(HLAfloat64Time(std::stod(arg(1))));
    } else if (c == "tara") {
      rti->timeAdvanceRequestAvailable(HLAfloat64Time(std::stod(arg(1))));
    } else if (c == "ner") {
      rti->nextMessageRequest(HLAfloat64Time(std::stod(arg(1))));
    } else if (c == "nera") {
      rti->nextMessageRequestAvailable(HLAfloat64Time(std::stod(arg(1))));
    } else if (c == "query-time") {
      HLAfloat64Time t;
      rti->queryLogicalTime(t);
      extra = ",\"time\":" + time_str(t.getTime());
    } else if (c == "auto-advance") {
      step = std::stod(arg(1));
      until = std::stod(arg(2));
      auto_advance = true;
    } else if (c == "echo") {
      object(arg(1));
      object(arg(2));
      std::lock_guard<std::mutex> g(echo_lock);
      echo_from = arg(1);
      echo_to = arg(2);
    } else if (c == "evoke-in-callback") {
      evoke_in_callback = true;
    } else if (c == "sync") {
      rti->registerFederationSynchronizationPoint(wide(arg(1)), VariableLengthData("s", 1));
    } else if (c == "achieve") {
      rti->synchronizationPointAchieved(wide(arg(1)));
    } else if (c == "save") {
      rti->requestFederationSave(wide(arg(1)));
    } else if (c == "save-begun") {
      rti->federateSaveBegun();
    } else if (c == "save-complete") {
      rti->federateSaveComplete();
    } else if (c == "restore") {
      rti->requestFederationRestore(wide(arg(1)));
    } else if (c == "restore-complete") {
      rti->federateRestoreComplete();
    } else if (c == "divest") {
      rti->unconditionalAttributeOwnershipDivestiture(object(arg(1)),
                                                       attrs(class_of(arg(1)), arg(2)));
    } else if (c == "negotiate") {
      rti->negotiatedAttributeOwnershipDivestiture(
          object(arg(1)), attrs(class_of(arg(1)), arg(2)), VariableLengthData("n", 1));
    } else if (c == "confirm") {
      rti->confirmDivestiture(object(arg(1)), attrs(class_of(arg(1)), arg(2)),
                              VariableLengthData("c", 1));
    } else if (c == "acquire") {
      rti->attributeOwnershipAcquisition(object(arg(1)), attrs(class_of(arg(1)), arg(2)),
                                         VariableLengthData("a", 1));
    } else if (c == "acquire-if") {
      rti->attributeOwnershipAcquisitionIfAvailable(object(arg(1)),
                                                    attrs(class_of(arg(1)), arg(2)));
    } else if (c == "owned") {
      AttributeHandleSet s = attrs(class_of(arg(1)), arg(2));
      bool owned = rti->isAttributeOwnedByFederate(object(arg(1)), *s.begin());
      extra = std::string(",\"owned\":") + (owned ? "true" : "false");
    } else if (c == "query-owner") {
      AttributeHandleSet s = attrs(class_of(arg(1)), arg(2));
      rti->queryAttributeOwnership(object(arg(1)), *s.begin());
    } else if (c == "enable-callbacks") {
      rti->enableCallbacks();
    } else if (c == "disable-callbacks") {
      rti->disableCallbacks();
    } else {
      throw std::runtime_error("unknown command " + c);
    }
    print("{\"event\":\"ok\",\"cmd\":" + json_str(line) + extra + "}");
  }
};

} // namespace

int main(int argc, char **argv) {
  CallbackModel model = HLA_EVOKED;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--model") == 0 && i + 1 < argc) {
      ++i;
      model = std::strcmp(argv[i], "immediate") == 0 ? HLA_IMMEDIATE : HLA_EVOKED;
    }
  }
  Shell shell;
  try {
    RTIambassadorFactory factory;
    shell.rti = factory.createRTIambassador();
    shell.rti->connect(shell, model, L"");
  } catch (...) {
    std::string message;
    std::string cls = current_exception_class(message);
    print("{\"event\":\"error\",\"exception\":" + json_str(cls) + ",\"message\":" +
          json_str(message) + "}");
    return 1;
  }
  print(std::string("{\"event\":\"connected\",\"model\":\"") +
        (model == HLA_EVOKED ? "evoked" : "immediate") + "\"}");

  std::string pending;
  for (;;) {
    // Commands first; while none is waiting, the evoked model delivers callbacks here.
    struct pollfd in = {0, POLLIN, 0};
    int ready = ::poll(&in, 1, model == HLA_EVOKED ? 0 : 100);
    if (ready > 0) {
      char buf[4096];
      ssize_t n = ::read(0, buf, sizeof buf);
      if (n <= 0) break; // stdin closed: the test is gone
      pending.append(buf, static_cast<size_t>(n));
      size_t nl;
      bool stop = false;
      while ((nl = pending.find('\n')) != std::string::npos) {
        std::string line = pending.substr(0, nl);
        pending.erase(0, nl + 1);
        if (line == "exit") {
          stop = true;
          break;
        }
        try {
          shell.run(line);
        } catch (...) {
          std::string message;
          std::string cls = current_exception_class(message);
          print("{\"event\":\"failed\",\"cmd\":" + json_str(line) + ",\"exception\":" +
                json_str(cls) + ",\"message\":" + json_str(message) + "}");
        }
      }
      if (stop) break;
    } else if (model == HLA_EVOKED) {
      try {
        shell.rti->evokeMultipleCallbacks(0.005, 0.02);
      } catch (...) {
        std::string message;
        std::string cls = current_exception_class(message);
        print("{\"event\":\"evoke_failed\",\"exception\":" + json_str(cls) + "}");
      }
    }
  }
  return 0;
}
