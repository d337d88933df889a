// bench_fed: the C++ side of `hlamesh-bench ... --api cpp`. A federate written only against the
// IEEE 1516-2010 C++ API (built by the bench from the installed SDK with pkg-config) that does
// what the Rust bench's own processes do, on the same FOM (benches/fom/Bench.xml) and the same
// message layout (benches/src/wire.rs):
//
//   ping    the latency driver: `ping BLOCK N SIZE` runs N round trips, each next ping sent from
//           inside reflectAttributeValues (immediate callbacks), and prints the round trips
//   echo    reflect of a ping -> update of the echo from inside the callback (immediate)
//   sink    counts streamed messages per block; `end PATH BLOCK SENT` reports the block
//   source  `stream PATH BLOCK COUNT REL SIZE SENDER` sends COUNT updates as fast as it can
//   time    regulating (lookahead 1) and constrained; `tar STEPS` runs a TAR lockstep with
//           evoked callbacks (the main thread waits for each grant in evokeCallback)
//
//   bench_fed --role R --designator D --federation F --fom PATH [--create] [--cpu N]
//             [--members N] [--timeout-s S]
//
// It prints one JSON line per event on stdout ("ready" once joined and set up) and exits when
// stdin closes, so a dying driver never leaves it behind.

#include <RTI/RTI1516.h>
#include <RTI/NullFederateAmbassador.h>
#include <RTI/time/HLAfloat64Interval.h>
#include <RTI/time/HLAfloat64Time.h>

#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace rti1516e;
using Clock = std::chrono::steady_clock;

namespace {

std::wstring wide(std::string const &s) { return std::wstring(s.begin(), s.end()); }

std::string narrow(std::wstring const &w) {
  std::string out;
  for (wchar_t c : w) out += (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') ? char(c) : '?';
  return out;
}

void say(std::string const &line) {
  std::fputs(line.c_str(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

uint64_t wall_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count());
}

uint64_t get_be(unsigned char const *p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

void put_be(unsigned char *p, int n, uint64_t v) {
  for (int i = n - 1; i >= 0; --i, v >>= 8) p[i] = static_cast<unsigned char>(v & 0xff);
}

// The wire layout's header: [kind, path, best_effort, sender, block u32 BE, index u64 BE].
std::vector<unsigned char> message(char kind, uint8_t path, bool best_effort, uint32_t block,
                                   uint64_t index, size_t size) {
  std::vector<unsigned char> m(size < 16 ? 16 : size, 0x5a);
  m[0] = static_cast<unsigned char>(kind);
  m[1] = path;
  m[2] = best_effort ? 1 : 0;
  m[3] = 0;
  put_be(&m[4], 4, block);
  put_be(&m[8], 8, index);
  return m;
}

struct Options {
  std::string role, designator, federation, fom;
  bool create = false;
  int cpu = -1;
  int members = 1;
  int timeout_s = 300;
};

struct Block {
  uint64_t received = 0, bytes = 0;
  Clock::time_point first, last;
};

class BenchFed : public NullFederateAmbassador {
 public:
  explicit BenchFed(Options o) : opt_(std::move(o)) {}

  std::unique_ptr<RTIambassador> rti;
  AttributeHandle reliable, best_effort;
  ObjectInstanceHandle object;

  // ---- callbacks ---------------------------------------------------------------------------

  void discoverObjectInstance(ObjectInstanceHandle, ObjectClassHandle,
                              std::wstring const &) override {
    std::lock_guard<std::mutex> g(mu_);
    ++discovered_;
    cv_.notify_all();
  }

  void reflectAttributeValues(ObjectInstanceHandle, AttributeHandleValueMap const &values,
                              VariableLengthData const &, OrderType, TransportationType,
                              SupplementalReflectInfo) override {
    if (values.empty()) return;
    VariableLengthData const &v = values.begin()->second;
    auto const *m = static_cast<unsigned char const *>(v.data());
    size_t len = v.size();
    if (len < 16) return;
    if (m[0] == 'P' && opt_.role == "echo") {
      uint64_t t2 = wall_ns();
      std::vector<unsigned char> e(m, m + len);
      e[0] = 'E';
      if (e.size() >= 32) {
        put_be(&e[16], 8, t2);
        put_be(&e[24], 8, wall_ns());
      }
      send(e[2] == 1, e);
    } else if (m[0] == 'E' && opt_.role == "ping") {
      on_echo(m);
    } else if (m[0] == 'T' && opt_.role == "sink") {
      auto now = Clock::now();
      std::lock_guard<std::mutex> g(mu_);
      Block &b = blocks_[{m[1], uint32_t(get_be(m + 4, 4))}];
      if (b.received == 0) b.first = now;
      b.last = now;
      ++b.received;
      b.bytes += len;
    }
  }

  void timeRegulationEnabled(LogicalTime const &) override {
    ++enabled_;
  }
  void timeConstrainedEnabled(LogicalTime const &) override {
    ++enabled_;
  }
  void timeAdvanceGrant(LogicalTime const &t) override {
    granted_ = dynamic_cast<HLAfloat64Time const &>(t).getTime();
    got_grant_ = true;
  }

  // ---- set-up ------------------------------------------------------------------------------

  void start() {
    bool time = opt_.role == "time";
    rti = RTIambassadorFactory().createRTIambassador();
    rti->connect(*this, time ? HLA_EVOKED : HLA_IMMEDIATE, wide(opt_.designator));
    if (opt_.create) {
      try {
        rti->createFederationExecution(wide(opt_.federation), wide(opt_.fom));
      } catch (FederationExecutionAlreadyExists const &) {
      }
    }
    auto deadline = Clock::now() + std::chrono::seconds(opt_.timeout_s);
    for (;;) {
      try {
        std::ostringstream name;
        name << "cpp-bench-" << getpid();
        rti->joinFederationExecution(wide(name.str()), L"hlamesh-bench-cpp",
                                     wide(opt_.federation));
        break;
      } catch (FederationExecutionDoesNotExist const &) {
        if (Clock::now() > deadline) throw;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    ObjectClassHandle cls = rti->getObjectClassHandle(L"BenchObject");
    reliable = rti->getAttributeHandle(cls, L"Reliable");
    best_effort = rti->getAttributeHandle(cls, L"BestEffort");
    AttributeHandleSet attrs{reliable, best_effort};
    rti->publishObjectClassAttributes(cls, attrs);
    bool subscribe = opt_.role != "source";
    if (subscribe) rti->subscribeObjectClassAttributes(cls, attrs);
    object = rti->registerObjectInstance(cls);
    int want = subscribe ? opt_.members : 0;
    if (time) {
      while (discovered_ < want) evoke_until(deadline, "discoveries");
      rti->enableTimeRegulation(HLAfloat64Interval(1.0));
      rti->enableTimeConstrained();
      while (enabled_ < 2) evoke_until(deadline, "regulation and constraint");
    } else {
      std::unique_lock<std::mutex> g(mu_);
      if (!cv_.wait_until(g, deadline, [&] { return discovered_ >= want; }))
        throw std::runtime_error("peer objects not discovered in time");
    }
    say("{\"event\":\"ready\"}");
  }

  void evoke_until(Clock::time_point deadline, char const *what) {
    if (Clock::now() > deadline) throw std::runtime_error(std::string("timed out waiting for ") + what);
    rti->evokeCallback(0.05);
  }

  // One map per thread and reliability, kept between updates, its value pointing at the
  // caller's buffer (setDataPointer: no copy); the library copies what it sends.
  void send(bool be, std::vector<unsigned char> &m) {
    thread_local AttributeHandleValueMap rel_values, be_values;
    AttributeHandleValueMap &values = be ? be_values : rel_values;
    values[be ? best_effort : reliable].setDataPointer(m.data(), m.size());
    rti->updateAttributeValues(object, values, tag_);
  }

  // ---- ping ----------------------------------------------------------------------------------

  void ping(uint32_t block, uint64_t n, size_t size) {
    std::vector<unsigned char> first = message('P', 0, false, block, 0, size);
    {
      std::lock_guard<std::mutex> g(mu_);
      p_block_ = block;
      p_next_ = 0;
      p_end_ = n;
      p_size_ = size;
      p_active_ = true;
      samples_.clear();
      samples_.reserve(n);
      p_t0_ = Clock::now();
    }
    send(false, first);
    std::unique_lock<std::mutex> g(mu_);
    auto budget = std::chrono::seconds(2) + std::chrono::milliseconds(10) * n;
    bool done = cv_.wait_for(g, budget, [&] { return !p_active_; });
    p_active_ = false;
    std::ostringstream out;
    out << "{\"event\":\"rtts\",\"block\":" << block << ",\"complete\":" << (done ? "true" : "false")
        << ",\"ns\":[";
    for (size_t i = 0; i < samples_.size(); ++i) out << (i ? "," : "") << samples_[i];
    out << "]}";
    say(out.str());
  }

  void on_echo(unsigned char const *m) {
    auto now = Clock::now();
    std::vector<unsigned char> next;
    {
      std::lock_guard<std::mutex> g(mu_);
      if (!p_active_ || get_be(m + 4, 4) != p_block_ || get_be(m + 8, 8) != p_next_) return;
      samples_.push_back(
          uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(now - p_t0_).count()));
      if (++p_next_ == p_end_) {
        p_active_ = false;
        cv_.notify_all();
        return;
      }
      next = message('P', 0, false, p_block_, p_next_, p_size_);
      p_t0_ = Clock::now();
    }
    send(false, next);
  }

  // ---- throughput ----------------------------------------------------------------------------

  void stream(uint8_t path, uint32_t block, uint64_t count, bool be, size_t size) {
    std::vector<unsigned char> m = message('T', path, be, block, 0, size);
    auto t0 = Clock::now();
    for (uint64_t i = 0; i < count; ++i) {
      put_be(&m[8], 8, i);
      send(be, m);
    }
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
    std::ostringstream out;
    out << "{\"event\":\"sent\",\"path\":" << int(path) << ",\"block\":" << block
        << ",\"sent\":" << count << ",\"elapsed_ns\":" << ns << "}";
    say(out.str());
  }

  void end_of_block(uint8_t path, uint32_t block, uint64_t sent) {
    // As the Rust sink: wait until the block is complete or 300 ms pass without progress.
    uint64_t last_count = 0;
    auto last_change = Clock::now();
    for (;;) {
      uint64_t got;
      {
        std::lock_guard<std::mutex> g(mu_);
        got = blocks_[{path, block}].received;
      }
      if (got != last_count) {
        last_count = got;
        last_change = Clock::now();
      }
      if (got >= sent || Clock::now() - last_change > std::chrono::milliseconds(300)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    Block b;
    {
      std::lock_guard<std::mutex> g(mu_);
      b = blocks_[{path, block}];
      blocks_.erase({path, block});
    }
    int64_t ns = b.received ? std::chrono::duration_cast<std::chrono::nanoseconds>(b.last - b.first).count() : 0;
    std::ostringstream out;
    out << "{\"event\":\"block\",\"path\":" << int(path) << ",\"block\":" << block
        << ",\"received\":" << b.received << ",\"bytes\":" << b.bytes << ",\"elapsed_ns\":" << ns
        << "}";
    say(out.str());
  }

  // ---- time ----------------------------------------------------------------------------------

  void tar(uint64_t steps) {
    auto deadline = Clock::now() + std::chrono::seconds(opt_.timeout_s);
    auto t0 = Clock::now();
    uint64_t wrong = 0;
    for (uint64_t i = 0; i < steps; ++i) {
      double next = now_ + 1.0;
      got_grant_ = false;
      rti->timeAdvanceRequest(HLAfloat64Time(next));
      while (!got_grant_) evoke_until(deadline, "a TAR grant");
      if (granted_ != next) ++wrong;
      now_ = granted_;
    }
    double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    std::ostringstream out;
    out << "{\"event\":\"phase\",\"grants\":" << steps << ",\"secs\":" << secs
        << ",\"wrong_grants\":" << wrong << "}";
    say(out.str());
  }

  void finish() {
    try {
      rti->resignFederationExecution(CANCEL_THEN_DELETE_THEN_DIVEST);
      if (opt_.create) {
        try {
          rti->destroyFederationExecution(wide(opt_.federation));
        } catch (Exception const &) {
        }
      }
      rti->disconnect();
    } catch (Exception const &) {
    }
  }

 private:
  Options opt_;
  VariableLengthData const tag_;
  std::mutex mu_;
  std::condition_variable cv_;
  int discovered_ = 0;
  int enabled_ = 0;
  bool got_grant_ = false;
  double granted_ = 0.0, now_ = 0.0;
  // ping state
  bool p_active_ = false;
  uint32_t p_block_ = 0;
  uint64_t p_next_ = 0, p_end_ = 0;
  size_t p_size_ = 0;
  Clock::time_point p_t0_;
  std::vector<uint64_t> samples_;
  // sink state
  std::map<std::pair<uint8_t, uint32_t>, Block> blocks_;
};

int run(Options const &opt) {
  if (opt.cpu >= 0) {
    // Before the RTI starts any thread: they all inherit it.
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(opt.cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
      say("{\"event\":\"error\",\"message\":\"sched_setaffinity failed\"}");
      return 1;
    }
  }
  BenchFed fed(opt);
  fed.start();
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string cmd;
    in >> cmd;
    if (cmd == "ping") {
      uint32_t block;
      uint64_t n;
      size_t size;
      if (in >> block >> n >> size) fed.ping(block, n, size);
    } else if (cmd == "stream") {
      unsigned path, sender;
      uint32_t block;
      uint64_t count;
      std::string rel;
      size_t size;
      if (in >> path >> block >> count >> rel >> size >> sender)
        fed.stream(uint8_t(path), block, count, rel == "best-effort", size);
    } else if (cmd == "end") {
      unsigned path;
      uint32_t block;
      uint64_t sent;
      if (in >> path >> block >> sent) fed.end_of_block(uint8_t(path), block, sent);
    } else if (cmd == "tar") {
      uint64_t steps;
      if (in >> steps) fed.tar(steps);
    } else if (cmd == "quit") {
      break;
    } else {
      say("{\"event\":\"error\",\"message\":\"unknown command\"}");
    }
  }
  fed.finish();
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_fed: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--role") opt.role = value();
    else if (a == "--designator") opt.designator = value();
    else if (a == "--federation") opt.federation = value();
    else if (a == "--fom") opt.fom = value();
    else if (a == "--create") opt.create = true;
    else if (a == "--cpu") opt.cpu = std::atoi(value().c_str());
    else if (a == "--members") opt.members = std::atoi(value().c_str());
    else if (a == "--timeout-s") opt.timeout_s = std::atoi(value().c_str());
    else {
      std::fprintf(stderr, "bench_fed: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  try {
    return run(opt);
  } catch (Exception const &e) {
    say("{\"event\":\"error\",\"message\":\"" + narrow(e.what()) + "\"}");
  } catch (std::exception const &e) {
    say("{\"event\":\"error\",\"message\":\"" + narrow(wide(e.what())) + "\"}");
  }
  return 1;
}
