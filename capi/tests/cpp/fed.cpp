// A scripted C++ federate for capi/tests/federation.rs, written against the standard's C++ API
// only (plus hlm_callback_exceptions to read the counter of caught callback exceptions).
//
//   fed ROLE FEDERATION FOM MODEL DESIGNATOR
//
// ROLE: pub | sub (objects, interactions, misuse) or tpub | tsub (time management).
// MODEL: evoked | immediate.  Every line printed is "event key=value ..."; a failed check
// prints "error ..." and exits 1.  Everything is bounded by deadlines.

#include <RTI/RTI1516.h>
#include <RTI/NullFederateAmbassador.h>
#include <RTI/time/HLAinteger64Interval.h>
#include <RTI/time/HLAinteger64Time.h>
#include <RTI/time/HLAinteger64TimeFactory.h>

#include <hlamesh/hlm.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace rti1516e;

namespace
{

std::mutex outMutex;

void
say (std::string const & line)
{
   std::lock_guard<std::mutex> g(outMutex);
   std::printf("%s\n", line.c_str());
   std::fflush(stdout);
}

[[noreturn]] void
fail (std::string const & why)
{
   say("error " + why);
   std::_Exit(1);
}

std::string
narrow (std::wstring const & w)
{
   std::string s;
   for (wchar_t c : w)
      s += (c < 128 ? char(c) : '?');
   return s;
}

std::wstring
widen (std::string const & s)
{
   return std::wstring(s.begin(), s.end());
}

VariableLengthData
data (std::vector<uint8_t> const & v)
{
   return VariableLengthData(v.data(), v.size());
}

std::vector<uint8_t>
bytesOf (VariableLengthData const & v)
{
   auto p = static_cast<uint8_t const *>(v.data());
   return std::vector<uint8_t>(p, p + v.size());
}

std::vector<uint8_t>
text (std::string const & s)
{
   return std::vector<uint8_t>(s.begin(), s.end());
}

// 300 bytes with zeros and every high value: what a C string copy would break.
std::vector<uint8_t>
position ()
{
   std::vector<uint8_t> v(300);
   for (size_t i = 0; i < v.size(); ++i)
      v[i] = uint8_t((i * 7) ^ 0x5a);
   v[0] = 0;
   v[150] = 0;
   return v;
}

std::vector<uint8_t>
stopText ()
{
   std::vector<uint8_t> v = text("stop");
   v.push_back(0);
   v.push_back(0xff);
   v.push_back(1);
   return v;
}

using Clock = std::chrono::steady_clock;

struct Handles
{
   ObjectClassHandle vehicle, car;
   AttributeHandle position, speed, colour;
   InteractionClassHandle command, stop;
   ParameterHandle textParam, reasonParam;

   void
   load (RTIambassador & rti)
   {
      vehicle = rti.getObjectClassHandle(L"HLAobjectRoot.Vehicle");
      car = rti.getObjectClassHandle(L"HLAobjectRoot.Vehicle.Car");
      position = rti.getAttributeHandle(vehicle, L"Position");
      speed = rti.getAttributeHandle(vehicle, L"Speed");
      colour = rti.getAttributeHandle(car, L"Colour");
      command = rti.getInteractionClassHandle(L"HLAinteractionRoot.Command");
      stop = rti.getInteractionClassHandle(L"HLAinteractionRoot.Command.Stop");
      textParam = rti.getParameterHandle(command, L"Text");
      reasonParam = rti.getParameterHandle(stop, L"Reason");
      if (rti.getObjectClassName(car) != L"HLAobjectRoot.Vehicle.Car" &&
          rti.getObjectClassName(car) != L"Car")
         fail("getObjectClassName: " + narrow(rti.getObjectClassName(car)));
   }
};

// The federate: callbacks record what happened; a condition variable wakes the main thread
// (needed in the immediate model, where callbacks run on an RTI thread).
class Federate : public NullFederateAmbassador
{
public:
   RTIambassador * rti = nullptr;
   Handles h;
   std::string role;
   bool immediate = false;

   std::mutex m;
   std::condition_variable cv;
   std::vector<std::string> commands; // Text of Command interactions received
   bool discovered = false, reflected = false, removed = false, stopped = false;
   bool regulating = false, constrained = false;
   int64_t granted = 0;
   int64_t grants = 0;
   int64_t lastReflectTime = 0;
   int reflects = 0;
   int64_t target = 0; // tsub: the time to advance to
   int64_t start = 0;  // the time both federates started advancing from
   ObjectInstanceHandle seen;

   // Waits (bounded) until `done` holds; evokes callbacks meanwhile in the evoked model.
   void
   await (std::function<bool ()> done, char const * what, double seconds = 30)
   {
      auto end = Clock::now() + std::chrono::milliseconds(int(seconds * 1000));
      for (;;)
      {
         {
            std::unique_lock<std::mutex> g(m);
            if (done())
               return;
            if (immediate)
               cv.wait_for(g, std::chrono::milliseconds(20));
         }
         if (!immediate)
            rti->evokeMultipleCallbacks(0.02, 0.1);
         if (Clock::now() > end)
            fail(std::string("timed out waiting for ") + what);
      }
   }

   void
   notify ()
   {
      cv.notify_all();
   }

   void
   sendCommand (std::string const & t)
   {
      ParameterHandleValueMap p;
      p[h.textParam] = data(text(t));
      rti->sendInteraction(h.command, p, data(text("tag-" + t)));
   }

   // A service that may not be called from within a callback.
   void
   checkNotAllowedInCallback ()
   {
      try
      {
         rti->evokeCallback(0.0);
         fail("evokeCallback inside a callback did not throw");
      }
      catch (CallNotAllowedFromWithinCallback const &)
      {
         say("ok CallNotAllowedFromWithinCallback");
      }
   }

   void
   discoverObjectInstance (ObjectInstanceHandle theObject, ObjectClassHandle theObjectClass,
                           std::wstring const & name) override
   {
      say("discover class=" + narrow(rti->getObjectClassName(theObjectClass)) +
          " name=" + narrow(name));
      {
         std::lock_guard<std::mutex> g(m);
         discovered = true;
         seen = theObject;
      }
      notify();
      if (role == "sub")
         throw std::runtime_error("deliberate exception from discoverObjectInstance");
   }

   void
   reflectAttributeValues (ObjectInstanceHandle, AttributeHandleValueMap const & values,
                           VariableLengthData const & tag, OrderType sent, TransportationType,
                           SupplementalReflectInfo) override
   {
      if (role != "sub")
         return;
      bool first;
      {
         std::lock_guard<std::mutex> g(m);
         first = !reflected;
         reflected = true;
      }
      if (!first)
         return;
      if (values.size() != 1 || values.count(h.position) != 1)
         fail("reflect: expected Position only, got " + std::to_string(values.size()) + " values");
      if (bytesOf(values.at(h.position)) != position())
         fail("reflect: Position bytes differ");
      if (bytesOf(tag) != text("t1"))
         fail("reflect: tag differs");
      if (sent != RECEIVE)
         fail("reflect: sent order");
      say("reflect ok bytes=" + std::to_string(values.at(h.position).size()));
      checkNotAllowedInCallback();
      // Calling the RTI from inside a callback.
      sendCommand("ack");
      notify();
   }

   void
   reflectAttributeValues (ObjectInstanceHandle, AttributeHandleValueMap const & values,
                           VariableLengthData const &, OrderType sent, TransportationType,
                           LogicalTime const & time, OrderType received,
                           MessageRetractionHandle, SupplementalReflectInfo) override
   {
      // Time-stamp ordered delivery (tsub).
      int64_t t = dynamic_cast<HLAinteger64Time const &>(time).getTime();
      std::lock_guard<std::mutex> g(m);
      if (sent != TIMESTAMP || received != TIMESTAMP)
         fail("TSO reflect: orders");
      if (t <= lastReflectTime)
         fail("TSO reflect out of order: " + std::to_string(t));
      if (t <= granted)
         fail("TSO reflect at " + std::to_string(t) + " after grant " + std::to_string(granted));
      if (values.count(h.speed) != 1)
         fail("TSO reflect without Speed");
      std::vector<uint8_t> v = bytesOf(values.at(h.speed));
      if (v != text("speed-" + std::to_string(t)))
         fail("TSO reflect bytes at " + std::to_string(t));
      lastReflectTime = t;
      ++reflects;
   }

   void
   reflectAttributeValues (ObjectInstanceHandle, AttributeHandleValueMap const &,
                           VariableLengthData const &, OrderType, TransportationType,
                           LogicalTime const &, OrderType, SupplementalReflectInfo) override
   {
      fail("time-stamped reflect delivered in receive order");
   }

   void
   receiveInteraction (InteractionClassHandle theClass, ParameterHandleValueMap const & params,
                       VariableLengthData const & tag, OrderType, TransportationType,
                       SupplementalReceiveInfo) override
   {
      if (theClass != h.command)
         fail("interaction not promoted to Command");
      if (params.count(h.textParam) != 1)
         fail("interaction without Text");
      std::vector<uint8_t> t = bytesOf(params.at(h.textParam));
      if (role == "sub")
      {
         // Stop, promoted to Command: Reason filtered out, Text byte-identical.
         if (params.size() != 1)
            fail("interaction: Reason not filtered");
         if (t != stopText())
            fail("interaction: Text bytes differ");
         if (bytesOf(tag) != text("stop"))
            fail("interaction: tag differs");
         say("interaction ok");
         {
            std::lock_guard<std::mutex> g(m);
            stopped = true;
         }
         sendCommand("stop-ok");
      }
      else
      {
         std::string s(t.begin(), t.end());
         say("command " + s);
         if (commands.empty())
         {
            checkNotAllowedInCallback();
            try
            {
               rti->connect(*this, HLA_EVOKED);
               fail("connect inside a callback did not throw");
            }
            catch (CallNotAllowedFromWithinCallback const &)
            {
               say("ok CallNotAllowedFromWithinCallback connect");
            }
         }
         std::lock_guard<std::mutex> g(m);
         commands.push_back(s);
      }
      notify();
   }

   void
   removeObjectInstance (ObjectInstanceHandle o, VariableLengthData const & tag, OrderType,
                         SupplementalRemoveInfo) override
   {
      if (role != "sub")
         return;
      if (bytesOf(tag) != text("bye"))
         fail("remove: tag differs");
      if (!(o == seen))
         fail("remove: another object");
      say("removed");
      sendCommand("done");
      {
         std::lock_guard<std::mutex> g(m);
         removed = true;
      }
      notify();
   }

   void
   timeRegulationEnabled (LogicalTime const & t) override
   {
      say("regulation enabled at " + narrow(t.toString()));
      std::lock_guard<std::mutex> g(m);
      regulating = true;
      notify();
   }

   void
   timeConstrainedEnabled (LogicalTime const & t) override
   {
      say("constrained enabled at " + narrow(t.toString()));
      std::lock_guard<std::mutex> g(m);
      constrained = true;
      notify();
   }

   void
   timeAdvanceGrant (LogicalTime const & time) override
   {
      int64_t t = dynamic_cast<HLAinteger64Time const &>(time).getTime();
      int64_t next = 0;
      {
         std::lock_guard<std::mutex> g(m);
         if (t != granted + 1)
            fail("grant " + std::to_string(t) + " after " + std::to_string(granted));
         // The publisher sends at start+2, start+3, …: all before the grant of their time.
         if (role == "tsub" && reflects != (t - start > 1 ? t - start - 1 : 0))
            fail("grant " + std::to_string(t) + " after " + std::to_string(reflects) +
                 " TSO reflections");
         granted = t;
         ++grants;
         if (role == "tsub" && immediate && t < target)
            next = t + 1;
      }
      notify();
      if (next != 0)
         // The next request from inside the grant callback.
         rti->timeAdvanceRequest(HLAinteger64Time(next));
   }
};

std::unique_ptr<RTIambassador>
makeAmbassador ()
{
   RTIambassadorFactory factory;
   std::unique_ptr<RTIambassador> rti = factory.createRTIambassador();
   return rti;
}

void
createOrJoinExisting (RTIambassador & rti, std::wstring const & fed, std::wstring const & fom,
                      std::wstring const & time)
{
   try
   {
      std::vector<std::wstring> modules(1, fom);
      rti.createFederationExecution(fed, modules, time);
      say("created");
   }
   catch (FederationExecutionAlreadyExists const &)
   {
      say("exists");
   }
}

int
objects (Federate & f, RTIambassador & rti, std::wstring const & fed, std::wstring const & fom)
{
   Handles & h = f.h;
   if (f.role == "pub")
   {
      // Misuse first: the federate keeps working after catching each exception.
      try
      {
         rti.joinFederationExecution(L"pub", L"Test", fed + L"-missing");
         fail("join of a missing federation did not throw");
      }
      catch (FederationExecutionDoesNotExist const & e)
      {
         say("ok FederationExecutionDoesNotExist " + narrow(e.what()).substr(0, 60));
      }
      createOrJoinExisting(rti, fed, fom, L"");
      rti.joinFederationExecution(L"pub", L"Test", fed);
      h.load(rti);
      try
      {
         rti.registerObjectInstance(h.car);
         fail("register before publish did not throw");
      }
      catch (ObjectClassNotPublished const &)
      {
         say("ok ObjectClassNotPublished");
      }
      AttributeHandleSet attrs;
      attrs.insert(h.position);
      attrs.insert(h.colour);
      rti.publishObjectClassAttributes(h.car, attrs);
      rti.publishInteractionClass(h.stop);
      rti.subscribeInteractionClass(h.command);
      ObjectInstanceHandle car = rti.registerObjectInstance(h.car);
      say("registered name=" + narrow(rti.getObjectInstanceName(car)));
      // Update until the subscriber acknowledges a reflection (from inside its callback).
      AttributeHandleValueMap values;
      values[h.position] = data(position());
      values[h.colour] = data(text("red"));
      auto end = Clock::now() + std::chrono::seconds(30);
      for (;;)
      {
         rti.updateAttributeValues(car, values, data(text("t1")));
         if (f.immediate)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
         else
            rti.evokeMultipleCallbacks(0.05, 0.1);
         {
            std::lock_guard<std::mutex> g(f.m);
            if (!f.commands.empty())
               break;
         }
         if (Clock::now() > end)
            fail("no ack");
      }
      ParameterHandleValueMap params;
      params[h.textParam] = data(stopText());
      params[h.reasonParam] = data(text("reason"));
      rti.sendInteraction(h.stop, params, data(text("stop")));
      f.await([&] {
         for (auto & c : f.commands)
            if (c == "stop-ok")
               return true;
         return false;
      }, "stop-ok");
      rti.deleteObjectInstance(car, data(text("bye")));
      f.await([&] {
         for (auto & c : f.commands)
            if (c == "done")
               return true;
         return false;
      }, "done");
      rti.resignFederationExecution(CANCEL_THEN_DELETE_THEN_DIVEST);
      say("resigned");
   }
   else
   {
      createOrJoinExisting(rti, fed, fom, L"");
      rti.joinFederationExecution(L"sub", L"Test", fed);
      h.load(rti);
      AttributeHandleSet attrs;
      attrs.insert(h.position);
      rti.subscribeObjectClassAttributes(h.vehicle, attrs);
      rti.subscribeInteractionClass(h.command);
      rti.publishInteractionClass(h.command);
      say("ready");
      f.await([&] { return f.removed; }, "remove");
      if (!f.discovered || !f.reflected || !f.stopped)
         fail("missing discover, reflect or interaction");
      say("callback exceptions=" + std::to_string(hlm_callback_exceptions(nullptr)));
      rti.resignFederationExecution(CANCEL_THEN_DELETE_THEN_DIVEST);
      say("resigned");
      // The publisher may still be joined: FederatesCurrentlyJoined until it resigns.
      auto end = Clock::now() + std::chrono::seconds(20);
      for (;;)
      {
         try
         {
            rti.destroyFederationExecution(fed);
            say("destroyed");
            break;
         }
         catch (FederatesCurrentlyJoined const &)
         {
            if (Clock::now() > end)
               fail("federation never emptied");
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
         }
      }
   }
   return 0;
}

int
timed (Federate & f, RTIambassador & rti, std::wstring const & fed, std::wstring const & fom)
{
   Handles & h = f.h;
   int64_t const steps = 10;
   createOrJoinExisting(rti, fed, fom, L"HLAinteger64Time");
   rti.joinFederationExecution(widen(f.role), L"Test", fed);
   h.load(rti);
   auto factory = rti.getTimeFactory();
   if (factory->getName() != L"HLAinteger64Time")
      fail("time factory " + narrow(factory->getName()));
   AttributeHandleSet attrs;
   attrs.insert(h.speed);
   if (f.role == "tsub")
      rti.subscribeObjectClassAttributes(h.vehicle, attrs);
   else
      rti.publishObjectClassAttributes(h.vehicle, attrs);
   rti.enableTimeRegulation(HLAinteger64Interval(1));
   f.await([&] { return f.regulating; }, "regulation");
   rti.enableTimeConstrained();
   f.await([&] { return f.constrained; }, "constraint");
   HLAinteger64Time now;
   rti.queryLogicalTime(now);
   say("ready at " + std::to_string(now.getTime()));
   f.granted = now.getTime();
   f.start = f.granted;
   if (f.role == "tsub")
   {
      // Advance only once the publisher is there (its instance is discovered): alone, this
      // federate would be granted every time at once.
      f.await([&] { return f.discovered; }, "the publisher's instance");
      f.target = f.granted + steps + 1;
      int64_t before = f.grants;
      rti.timeAdvanceRequest(HLAinteger64Time(f.granted + 1));
      if (f.immediate)
         f.await([&] { return f.granted >= f.target; }, "grants");
      else
      {
         f.await([&] { return f.grants > before; }, "grant");
         while (f.granted < f.target)
         {
            before = f.grants;
            rti.timeAdvanceRequest(HLAinteger64Time(f.granted + 1));
            f.await([&] { return f.grants > before; }, "grant");
         }
      }
      say("granted " + std::to_string(f.granted) + " reflects=" + std::to_string(f.reflects));
      if (f.reflects != int(steps))
         fail("expected " + std::to_string(steps) + " TSO reflections");
   }
   else
   {
      // The first request cannot be granted before the subscriber advances, which it does
      // only after discovering the instance registered below: a second request now is
      // deterministically refused.
      int64_t before = f.grants;
      rti.timeAdvanceRequest(HLAinteger64Time(f.granted + 1));
      try
      {
         rti.timeAdvanceRequest(HLAinteger64Time(f.granted + 2));
         fail("second request did not throw");
      }
      catch (InTimeAdvancingState const &)
      {
         say("ok InTimeAdvancingState");
      }
      ObjectInstanceHandle o = rti.registerObjectInstance(h.vehicle);
      f.await([&] { return f.grants > before; }, "grant");
      for (int64_t i = 0; i < steps; ++i)
      {
         int64_t t = f.granted;
         AttributeHandleValueMap v;
         v[h.speed] = data(text("speed-" + std::to_string(t + 1)));
         rti.updateAttributeValues(o, v, data(text("s")), HLAinteger64Time(t + 1));
         before = f.grants;
         rti.timeAdvanceRequest(HLAinteger64Time(t + 1));
         f.await([&] { return f.grants > before; }, "grant");
      }
      say("granted " + std::to_string(f.granted));
   }
   rti.resignFederationExecution(CANCEL_THEN_DELETE_THEN_DIVEST);
   say("resigned");
   return 0;
}

}

int
main (int argc, char ** argv)
{
   if (argc != 6)
   {
      std::fprintf(stderr, "usage: fed ROLE FEDERATION FOM evoked|immediate DESIGNATOR\n");
      return 2;
   }
   Federate f;
   f.role = argv[1];
   std::wstring fed = widen(argv[2]);
   std::wstring fom = widen(argv[3]);
   f.immediate = std::string(argv[4]) == "immediate";
   try
   {
      std::unique_ptr<RTIambassador> rti = makeAmbassador();
      f.rti = rti.get();
      rti->connect(f, f.immediate ? HLA_IMMEDIATE : HLA_EVOKED, widen(argv[5]));
      try
      {
         rti->connect(f, HLA_EVOKED);
         fail("second connect did not throw");
      }
      catch (AlreadyConnected const &)
      {
         say("ok AlreadyConnected");
      }
      int r = (f.role == "pub" || f.role == "sub") ? objects(f, *rti, fed, fom)
                                                   : timed(f, *rti, fed, fom);
      rti->disconnect();
      say("disconnected");
      return r;
   }
   catch (Exception const & e)
   {
      fail("uncaught " + narrow(e.what()));
   }
}
