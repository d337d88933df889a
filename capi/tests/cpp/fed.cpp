// A scripted C++ federate for capi/tests/federation.rs, written against the standard's C++ API
// only (plus hlm_callback_exceptions to read the counter of caught callback exceptions).
//
//   fed ROLE FEDERATION FOM MODEL DESIGNATOR
//
// ROLE: pub | sub (objects, interactions, misuse), tpub | tsub | nsub (time management: TAR
// or NER subscriber), oa | ob
// (synchronization point, ownership transfer), sa | sb (save and restore).
// MODEL: evoked | immediate.  Every line printed is "event key=value ..."; a failed check
// prints "error ..." and exits 1.  Everything is bounded by deadlines.

#include <RTI/RTI1516.h>
#include <RTI/NullFederateAmbassador.h>
#include <RTI/time/HLAfloat64Interval.h>
#include <RTI/time/HLAfloat64Time.h>
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
#include <set>
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


// The federation's time implementation: HLAinteger64Time, or HLAfloat64Time with
// FED_TIME=float (integral values either way, so the checks are the same).
bool
floatTime ()
{
   char const * v = std::getenv("FED_TIME");
   return v != nullptr && std::string(v) == "float";
}

std::wstring
timeName ()
{
   return floatTime() ? L"HLAfloat64Time" : L"HLAinteger64Time";
}

std::unique_ptr<LogicalTime>
at (int64_t v)
{
   if (floatTime())
      return std::unique_ptr<LogicalTime>(new HLAfloat64Time(double(v)));
   return std::unique_ptr<LogicalTime>(new HLAinteger64Time(v));
}

std::unique_ptr<LogicalTimeInterval>
interval (int64_t v)
{
   if (floatTime())
      return std::unique_ptr<LogicalTimeInterval>(new HLAfloat64Interval(double(v)));
   return std::unique_ptr<LogicalTimeInterval>(new HLAinteger64Interval(v));
}

int64_t
valueOf (LogicalTime const & t)
{
   if (auto f = dynamic_cast<HLAfloat64Time const *>(&t))
      return int64_t(f->getTime());
   return dynamic_cast<HLAinteger64Time const &>(t).getTime();
}

int64_t
valueOf (LogicalTimeInterval const & t)
{
   if (auto f = dynamic_cast<HLAfloat64Interval const *>(&t))
      return int64_t(f->getInterval());
   return dynamic_cast<HLAinteger64Interval const &>(t).getInterval();
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
   // The sent regions of Stop (Convey Region Designator Sets is on in CapiTest.xml).
   bool hasSentRegions = false;
   RegionHandleSet sentRegions;
   bool regulating = false, constrained = false;
   int64_t granted = 0;
   int64_t grants = 0;
   int64_t lastReflectTime = 0;
   int reflects = 0;
   int64_t target = 0; // tsub: the time to advance to
   int64_t start = 0;  // the time both federates started advancing from
   ObjectInstanceHandle seen;
   // Synchronization points and ownership (roles oa, ob).
   bool announced = false, synchronized = false, registeredPoint = false;
   bool acquired = false, released = false, reflectedFromNewOwner = false;
   std::string announcedTag;
   // listFederationExecutions → reportFederationExecutions.
   bool reported = false;
   std::vector<std::pair<std::wstring, std::wstring>> executions;
   // Save and restore (roles sa, sb).
   bool saved = false, restored = false, restoreRequested = false;
   // The MOM: the subscriber's own HLAfederate instance, owned by the RTI.
   bool momDiscovered = false, momOwnedByRti = false;
   ObjectInstanceHandle momObject;
   std::set<ObjectInstanceHandle> momObjects; // every MOM instance discovered

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
   attributeIsOwnedByRTI (ObjectInstanceHandle theObject, AttributeHandle) override
   {
      std::lock_guard<std::mutex> g(m);
      if (theObject == momObject)
      {
         say("ok attributeIsOwnedByRTI");
         momOwnedByRti = true;
      }
      notify();
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
      std::string const cls = narrow(rti->getObjectClassName(theObjectClass));
      if (cls.rfind("HLAobjectRoot.HLAmanager.", 0) == 0)
      {
         say("discover mom class=" + cls + " name=" + narrow(name));
         std::lock_guard<std::mutex> g(m);
         momObjects.insert(theObject);
         if (name == L"HLAfederate." + widen(role))
         {
            momDiscovered = true;
            momObject = theObject;
         }
         notify();
         return;
      }
      say("discover class=" + cls + " name=" + narrow(name));
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
   reflectAttributeValues (ObjectInstanceHandle theObject, AttributeHandleValueMap const & values,
                           VariableLengthData const & tag, OrderType sent, TransportationType,
                           SupplementalReflectInfo) override
   {
      {
         // The MOM's values (its instances are watched for discovery and ownership only).
         std::lock_guard<std::mutex> g(m);
         if (momObjects.count(theObject) == 1)
            return;
      }
      if (role == "oa")
      {
         if (values.count(h.position) == 1 && bytesOf(values.at(h.position)) == text("mine now"))
         {
            say("reflect from new owner");
            std::lock_guard<std::mutex> g(m);
            reflectedFromNewOwner = true;
         }
         notify();
         return;
      }
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
      int64_t t = valueOf(time);
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
                       SupplementalReceiveInfo info) override
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
            hasSentRegions = info.hasSentRegions;
            sentRegions = info.sentRegions;
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
      {
         // A MOM instance goes when its federate resigns (the publisher's, here).
         std::lock_guard<std::mutex> g(m);
         if (momObjects.count(o) == 1)
            return;
      }
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
   synchronizationPointRegistrationSucceeded (std::wstring const & label) override
   {
      say("sync registered " + narrow(label));
      std::lock_guard<std::mutex> g(m);
      registeredPoint = true;
      notify();
   }

   void
   announceSynchronizationPoint (std::wstring const & label,
                                 VariableLengthData const & tag) override
   {
      std::vector<uint8_t> t = bytesOf(tag);
      say("sync announced " + narrow(label) + " tag=" + std::string(t.begin(), t.end()));
      // Achieved from inside the announcement.
      rti->synchronizationPointAchieved(label);
      std::lock_guard<std::mutex> g(m);
      announced = true;
      announcedTag.assign(t.begin(), t.end());
      notify();
   }

   void
   federationSynchronized (std::wstring const & label, FederateHandleSet const & failed) override
   {
      say("synchronized " + narrow(label) + " failed=" + std::to_string(failed.size()));
      std::lock_guard<std::mutex> g(m);
      synchronized = true;
      notify();
   }

   void
   requestAttributeOwnershipRelease (ObjectInstanceHandle o, AttributeHandleSet const & candidates,
                                     VariableLengthData const & tag) override
   {
      if (bytesOf(tag) != text("want"))
         fail("release request: tag differs");
      AttributeHandleSet divested;
      rti->attributeOwnershipDivestitureIfWanted(o, candidates, divested);
      if (divested != candidates)
         fail("divestiture if wanted returned another set");
      say("released " + std::to_string(divested.size()));
      std::lock_guard<std::mutex> g(m);
      released = true;
      notify();
   }

   void
   attributeOwnershipAcquisitionNotification (ObjectInstanceHandle, AttributeHandleSet const & secured,
                                              VariableLengthData const &) override
   {
      if (secured.count(h.position) != 1)
         fail("acquisition notification without Position");
      say("acquired");
      std::lock_guard<std::mutex> g(m);
      acquired = true;
      notify();
   }


   void
   reportFederationExecutions (FederationExecutionInformationVector const & list) override
   {
      std::lock_guard<std::mutex> g(m);
      for (auto const & e : list)
         executions.emplace_back(e.federationExecutionName, e.logicalTimeImplementationName);
      reported = true;
      notify();
   }

   void
   initiateFederateSave (std::wstring const & label) override
   {
      say("save initiated " + narrow(label));
      // Answered from inside the callback.
      rti->federateSaveBegun();
      rti->federateSaveComplete();
   }

   void
   federationSaved () override
   {
      say("federation saved");
      std::lock_guard<std::mutex> g(m);
      saved = true;
      notify();
   }

   void
   federationNotSaved (SaveFailureReason r) override
   {
      fail("federation not saved: " + std::to_string(int(r)));
   }

   void
   requestFederationRestoreSucceeded (std::wstring const & label) override
   {
      say("restore request succeeded " + narrow(label));
      std::lock_guard<std::mutex> g(m);
      restoreRequested = true;
      notify();
   }

   void
   requestFederationRestoreFailed (std::wstring const & label) override
   {
      fail("restore request failed " + narrow(label));
   }

   void
   initiateFederateRestore (std::wstring const & label, std::wstring const & name,
                            FederateHandle handle) override
   {
      say("restore initiated " + narrow(label) + " as " + narrow(name) + " " +
          narrow(handle.toString()));
      rti->federateRestoreComplete();
   }

   void
   federationRestored () override
   {
      say("federation restored");
      std::lock_guard<std::mutex> g(m);
      restored = true;
      notify();
   }

   void
   federationNotRestored (RestoreFailureReason r) override
   {
      fail("federation not restored: " + std::to_string(int(r)));
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
      int64_t t = valueOf(time);
      int64_t next = 0;
      {
         std::lock_guard<std::mutex> g(m);
         if (role == "nsub")
         {
            // Next message request: granted at the time of the next time-stamped message,
            // which was delivered just before (the publisher sends at start+2, start+3, …).
            if (t != lastReflectTime || reflects != t - start - 1)
               fail("NER grant " + std::to_string(t) + " with last message at " +
                    std::to_string(lastReflectTime) + " after " + std::to_string(reflects));
            granted = t;
            ++grants;
            next = (immediate && t < target) ? target : 0;
         }
         else if (t != granted + 1)
            fail("grant " + std::to_string(t) + " after " + std::to_string(granted));
         // The publisher sends at start+2, start+3, …: all before the grant of their time.
         if (role == "tsub" && reflects != (t - start > 1 ? t - start - 1 : 0))
            fail("grant " + std::to_string(t) + " after " + std::to_string(reflects) +
                 " TSO reflections");
         else
         {
            granted = t;
            ++grants;
            if (role != "tpub" && immediate && t < target)
               next = t + 1;
         }
      }
      notify();
      // The next request from inside the grant callback.
      if (next != 0 && role == "nsub")
         rti->nextMessageRequest(*at(next));
      else if (next != 0)
         rti->timeAdvanceRequest(*at(next));
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
      try
      {
         rti.createFederationExecution(fed + L"-bad", L"/nonexistent/hlamesh/NoSuchFom.xml");
         fail("create with a missing FOM module did not throw");
      }
      catch (CouldNotOpenFDD const &)
      {
         say("ok CouldNotOpenFDD");
      }
      createOrJoinExisting(rti, fed, fom, L"");
      FederateHandle self = rti.joinFederationExecution(L"pub", L"Test", fed);
      h.load(rti);
      // Advisory switches: attribute scope is off by default (the standard MIM's value).
      rti.enableAttributeScopeAdvisorySwitch();
      try
      {
         rti.enableAttributeScopeAdvisorySwitch();
         fail("enabling the attribute scope switch twice did not throw");
      }
      catch (AttributeScopeAdvisorySwitchIsOn const &)
      {
         rti.disableAttributeScopeAdvisorySwitch();
         say("ok AttributeScopeAdvisorySwitchIsOn");
      }
      // Handles and names round-trip; a name no FOM has throws NameNotFound.
      if (rti.getAttributeName(h.car, h.colour) != L"Colour" ||
          rti.getParameterName(h.stop, h.reasonParam) != L"Reason" ||
          rti.getInteractionClassName(h.command).find(L"Command") == std::wstring::npos ||
          rti.getOrderType(L"TimeStamp") != TIMESTAMP ||
          rti.getTransportationName(BEST_EFFORT) != L"HLAbestEffort")
         fail("handle and name lookups");
      try
      {
         rti.getObjectClassHandle(L"HLAobjectRoot.NoSuchClass");
         fail("lookup of an unknown class did not throw");
      }
      catch (NameNotFound const &)
      {
         say("ok NameNotFound");
      }
      // The DDM support services: the standard MIM's dimensions, a MOM interaction's dimension
      // set, and the normalization of service groups and federate handles.
      {
         DimensionHandle federate = rti.getDimensionHandle(L"HLAfederate");
         DimensionHandle group = rti.getDimensionHandle(L"HLAserviceGroup");
         InteractionClassHandle report = rti.getInteractionClassHandle(
            L"HLAmanager.HLAfederate.HLAreport.HLAreportObjectClassPublication");
         DimensionHandleSet dims = rti.getAvailableDimensionsForInteractionClass(report);
         if (rti.getDimensionName(group) != L"HLAserviceGroup" ||
             rti.getDimensionUpperBound(group) != 7 ||
             dims.size() != 1 || dims.count(federate) != 1 ||
             !rti.getAvailableDimensionsForClassAttribute(h.car, h.colour).empty() ||
             rti.normalizeServiceGroup(SUPPORT_SERVICES) != 6 ||
             rti.normalizeServiceGroup(FEDERATION_MANAGEMENT) != 0 ||
             rti.normalizeFederateHandle(self) >= rti.getDimensionUpperBound(federate))
            fail("DDM support services");
         try
         {
            rti.getDimensionHandle(L"NoSuchDimension");
            fail("lookup of an unknown dimension did not throw");
         }
         catch (NameNotFound const &)
         {
         }
         try
         {
            rti.normalizeServiceGroup(ServiceGroup(99));
            fail("normalizeServiceGroup of 99 did not throw");
         }
         catch (InvalidServiceGroup const &)
         {
            say("ok DDM support services");
         }
      }
      // DDM regions on the standard MIM's HLAfederate dimension: template and commit, the
      // exceptions, and a region in use by a subscription.
      {
         DimensionHandle federate = rti.getDimensionHandle(L"HLAfederate");
         InteractionClassHandle report = rti.getInteractionClassHandle(
            L"HLAmanager.HLAfederate.HLAreport.HLAreportObjectClassPublication");
         DimensionHandleSet dims;
         dims.insert(federate);
         RegionHandle region = rti.createRegion(dims);
         DimensionHandleSet got = rti.getDimensionHandleSet(region);
         if (got.size() != 1 || got.count(federate) != 1)
            fail("getDimensionHandleSet");
         rti.setRangeBounds(region, federate, RangeBounds(3, 9));
         RangeBounds b = rti.getRangeBounds(region, federate);
         if (b.getLowerBound() != 3 || b.getUpperBound() != 9)
            fail("getRangeBounds after setRangeBounds");
         RegionHandleSet regions;
         regions.insert(region);
         rti.commitRegionModifications(regions);
         try
         {
            rti.setRangeBounds(region, federate, RangeBounds(5, 5));
            fail("an empty range did not throw");
         }
         catch (InvalidRangeBound const &)
         {
         }
         try
         {
            rti.getRangeBounds(region, rti.getDimensionHandle(L"HLAserviceGroup"));
            fail("a dimension the region lacks did not throw");
         }
         catch (RegionDoesNotContainSpecifiedDimension const &)
         {
         }
         try
         {
            // Car.Colour has no dimensions: no region fits it.
            AttributeHandleSet colour;
            colour.insert(h.colour);
            AttributeHandleSetRegionHandleSetPairVector pairs;
            pairs.push_back(std::make_pair(colour, regions));
            rti.subscribeObjectClassAttributesWithRegions(h.car, pairs);
            fail("a region out of its attribute's context did not throw");
         }
         catch (InvalidRegionContext const &)
         {
         }
         rti.subscribeInteractionClassWithRegions(report, regions);
         try
         {
            rti.deleteRegion(region);
            fail("deleting a region in use did not throw");
         }
         catch (RegionInUseForUpdateOrSubscription const &)
         {
         }
         rti.unsubscribeInteractionClassWithRegions(report, regions);
         rti.deleteRegion(region);
         try
         {
            rti.getDimensionHandleSet(region);
            fail("a deleted region did not throw");
         }
         catch (InvalidRegion const &)
         {
            say("ok DDM regions");
         }
      }
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
      // Update rates: an unknown designator throws; an attribute this federate does not
      // subscribe has the rate 0.
      try
      {
         AttributeHandleSet speed;
         speed.insert(h.speed);
         rti.subscribeObjectClassAttributes(h.vehicle, speed, true, L"NoSuchRate");
         fail("subscribe with an unknown update rate did not throw");
      }
      catch (InvalidUpdateRateDesignator const &)
      {
         say("ok InvalidUpdateRateDesignator");
      }
      if (rti.getUpdateRateValueForAttribute(car, h.position) != 0.0)
         fail("getUpdateRateValueForAttribute of an unsubscribed attribute");
      say("ok getUpdateRateValueForAttribute");
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
      // With callbacks disabled, the answer to Stop waits until they are enabled again.
      // Sent with a region on Band, which the subscriber is conveyed (the switch is on).
      DimensionHandleSet bandSet;
      bandSet.insert(rti.getDimensionHandle(L"Band"));
      RegionHandle band = rti.createRegion(bandSet);
      rti.setRangeBounds(band, rti.getDimensionHandle(L"Band"), RangeBounds(10, 20));
      RegionHandleSet bands;
      bands.insert(band);
      rti.commitRegionModifications(bands);
      rti.disableCallbacks();
      rti.sendInteractionWithRegions(h.stop, params, bands, data(text("stop")));
      auto quiet = Clock::now() + std::chrono::milliseconds(500);
      while (Clock::now() < quiet)
      {
         if (f.immediate)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
         else
            rti.evokeMultipleCallbacks(0.05, 0.1);
         std::lock_guard<std::mutex> g(f.m);
         if (f.commands.size() != 1)
            fail("a callback was delivered while callbacks were disabled");
      }
      say("ok disableCallbacks");
      rti.enableCallbacks();
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
      rti.listFederationExecutions();
      f.await([&] { return f.reported; }, "reportFederationExecutions");
      bool listed = false;
      for (auto const & e : f.executions)
         listed = listed || (e.first == fed && e.second == L"HLAfloat64Time");
      if (!listed)
         fail("the federation is not reported with HLAfloat64Time");
      say("ok reportFederationExecutions");
      AttributeHandleSet attrs;
      attrs.insert(h.position);
      // At a rate the publisher's updates (every 50 ms) never reach: every one arrives.
      rti.subscribeObjectClassAttributes(h.vehicle, attrs, true, L"Fast");
      if (rti.getUpdateRateValue(L"Fast") != 1000.0)
         fail("getUpdateRateValue of Fast");
      say("ok getUpdateRateValue");
      rti.subscribeInteractionClass(h.command);
      rti.publishInteractionClass(h.command);
      // The MOM through the C++ API: this federate's own HLAfederate instance is discovered
      // and owned by the RTI.
      {
         ObjectClassHandle const mom = rti.getObjectClassHandle(L"HLAobjectRoot.HLAmanager.HLAfederate");
         AttributeHandleSet momAttrs;
         AttributeHandle const momName = rti.getAttributeHandle(mom, L"HLAfederateName");
         momAttrs.insert(momName);
         rti.subscribeObjectClassAttributes(mom, momAttrs, true);
         f.await([&] { return f.momDiscovered; }, "the MOM instance");
         rti.queryAttributeOwnership(f.momObject, momName);
         f.await([&] { return f.momOwnedByRti; }, "attributeIsOwnedByRTI");
      }
      say("ready");
      f.await([&] { return f.removed; }, "remove");
      if (!f.discovered || !f.reflected || !f.stopped)
         fail("missing discover, reflect or interaction");
      // Stop's sent region, conveyed as a handle of this federate whose ranges it can read.
      {
         DimensionHandle band = rti.getDimensionHandle(L"Band");
         if (!f.hasSentRegions || f.sentRegions.size() != 1)
            fail("Stop without its sent region");
         RegionHandle r = *f.sentRegions.begin();
         RangeBounds b = rti.getRangeBounds(r, band);
         DimensionHandleSet dims = rti.getDimensionHandleSet(r);
         if (b.getLowerBound() != 10 || b.getUpperBound() != 20 || dims.size() != 1 ||
             dims.count(band) != 1)
            fail("the sent region's range");
         try
         {
            rti.deleteRegion(r);
            fail("deleting a conveyed region did not throw");
         }
         catch (InvalidRegion const &)
         {
            say("ok sentRegions");
         }
      }
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


// A federation save and a restore of it (roles sa, sb).
int
saveRestore (Federate & f, RTIambassador & rti, std::wstring const & fed, std::wstring const & fom)
{
   createOrJoinExisting(rti, fed, fom, L"");
   rti.joinFederationExecution(widen(f.role), L"Test", fed);
   if (f.role == "sb")
      say("ready");
   else
   {
      // Both are members before the save is asked for.
      rti.getFederateHandle(L"sb");
      rti.requestFederationSave(L"s1");
   }
   f.await([&] { return f.saved; }, "federationSaved");
   if (f.role == "sa")
      rti.requestFederationRestore(L"s1");
   f.await([&] { return f.restored; }, "federationRestored");
   if (f.role == "sa" && !f.restoreRequested)
      fail("no requestFederationRestoreSucceeded");
   rti.resignFederationExecution(CANCEL_THEN_DELETE_THEN_DIVEST);
   say("resigned");
   return 0;
}

// Synchronization point and an intrusive ownership transfer (roles oa, ob).
int
ownership (Federate & f, RTIambassador & rti, std::wstring const & fed, std::wstring const & fom)
{
   Handles & h = f.h;
   createOrJoinExisting(rti, fed, fom, L"");
   rti.joinFederationExecution(widen(f.role), L"Test", fed);
   h.load(rti);
   AttributeHandleSet attrs;
   attrs.insert(h.position);
   rti.publishObjectClassAttributes(h.vehicle, attrs);
   rti.subscribeObjectClassAttributes(h.vehicle, attrs);
   if (f.role == "ob")
   {
      say("ready");
      f.await([&] { return f.synchronized; }, "federationSynchronized");
      f.await([&] { return f.discovered; }, "the instance");
      ObjectInstanceHandle o = f.seen;
      if (rti.isAttributeOwnedByFederate(o, h.position))
         fail("owned before acquisition");
      rti.attributeOwnershipAcquisition(o, attrs, data(text("want")));
      f.await([&] { return f.acquired; }, "acquisition");
      if (!rti.isAttributeOwnedByFederate(o, h.position))
         fail("not owned after acquisition notification");
      AttributeHandleValueMap v;
      v[h.position] = data(text("mine now"));
      rti.updateAttributeValues(o, v, data(text("new owner")));
      say("updated as owner");
   }
   else
   {
      ObjectInstanceHandle o = rti.registerObjectInstance(h.vehicle);
      AttributeHandleValueMap v;
      v[h.position] = data(text("first owner"));
      rti.updateAttributeValues(o, v, data(text("x")));
      rti.registerFederationSynchronizationPoint(L"ReadyToRun", data(text("go")));
      f.await([&] { return f.registeredPoint && f.announced && f.synchronized; }, "sync");
      if (f.announcedTag != "go")
         fail("announced tag");
      f.await([&] { return f.released; }, "release request");
      try
      {
         rti.updateAttributeValues(o, v, data(text("x")));
         fail("update of a divested attribute did not throw");
      }
      catch (AttributeNotOwned const &)
      {
         say("ok AttributeNotOwned");
      }
      f.await([&] { return f.reflectedFromNewOwner; }, "the new owner's update");
   }
   // Each still owns something (the old owner the privilege to delete, the new one Position).
   try
   {
      rti.resignFederationExecution(NO_ACTION);
      fail("resign with NO_ACTION while owning did not throw");
   }
   catch (FederateOwnsAttributes const &)
   {
      say("ok FederateOwnsAttributes");
   }
   rti.resignFederationExecution(UNCONDITIONALLY_DIVEST_ATTRIBUTES);
   say("resigned");
   return 0;
}

int
timed (Federate & f, RTIambassador & rti, std::wstring const & fed, std::wstring const & fom)
{
   Handles & h = f.h;
   int64_t const steps = 10;
   createOrJoinExisting(rti, fed, fom, timeName());
   rti.joinFederationExecution(widen(f.role), L"Test", fed);
   h.load(rti);
   auto factory = rti.getTimeFactory();
   if (factory->getName() != timeName())
      fail("time factory " + narrow(factory->getName()));
   AttributeHandleSet attrs;
   attrs.insert(h.speed);
   // ksub: a TAR subscriber whose publisher is killed (kill -9) part way: it checks only that
   // it keeps being granted, alone, once the publisher's federate is resigned for it.
   bool const subscriber = f.role == "tsub" || f.role == "nsub" || f.role == "ksub";
   if (subscriber)
      rti.subscribeObjectClassAttributes(h.vehicle, attrs);
   else
      rti.publishObjectClassAttributes(h.vehicle, attrs);
   rti.enableTimeRegulation(*interval(1));
   f.await([&] { return f.regulating; }, "regulation");
   rti.enableTimeConstrained();
   f.await([&] { return f.constrained; }, "constraint");
   std::unique_ptr<LogicalTime> now = factory->makeInitial();
   rti.queryLogicalTime(*now);
   say("ready at " + std::to_string(valueOf(*now)));
   f.granted = valueOf(*now);
   f.start = f.granted;
   if (subscriber)
   {
      // Advance only once the publisher is there (its instance is discovered): alone, this
      // federate would be granted every time at once.
      f.await([&] { return f.discovered; }, "the publisher's instance");
      std::unique_ptr<LogicalTimeInterval> lookahead = factory->makeZero();
      rti.queryLookahead(*lookahead);
      std::unique_ptr<LogicalTime> galt = factory->makeInitial();
      if (valueOf(*lookahead) != 1 || !rti.queryGALT(*galt) || valueOf(*galt) < 1)
         fail("lookahead or GALT");
      say("lookahead 1 galt>=1");
      f.target = f.granted + (f.role == "ksub" ? 3 * steps : steps + 1);
      bool const ner = f.role == "nsub";
      auto request = [&] (int64_t t) {
         if (ner)
            rti.nextMessageRequest(*at(t));
         else
            rti.timeAdvanceRequest(*at(t));
      };
      int64_t before = f.grants;
      request(ner ? f.target : f.granted + 1);
      if (f.immediate)
         f.await([&] { return f.granted >= f.target; }, "grants");
      else
      {
         f.await([&] { return f.grants > before; }, "grant");
         while (f.granted < f.target)
         {
            before = f.grants;
            request(ner ? f.target : f.granted + 1);
            f.await([&] { return f.grants > before; }, "grant");
         }
      }
      say("granted " + std::to_string(f.granted) + " reflects=" + std::to_string(f.reflects));
      if (f.role != "ksub" && f.reflects != int(steps))
         fail("expected " + std::to_string(steps) + " TSO reflections");
   }
   else
   {
      // The first request cannot be granted before the subscriber advances, which it does
      // only after discovering the instance registered below: a second request now is
      // deterministically refused.
      int64_t before = f.grants;
      rti.timeAdvanceRequest(*at(f.granted + 1));
      try
      {
         rti.timeAdvanceRequest(*at(f.granted + 2));
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
         if (i == 0)
         {
            // Retraction (8.21): an update well ahead, retracted at once, never reaches the
            // constrained subscriber (which counts exactly `steps` reflections).
            AttributeHandleValueMap r;
            r[h.speed] = data(text("retracted"));
            MessageRetractionHandle mh = rti.updateAttributeValues(o, r, data(text("s")),
                                                                   *at(t + 5));
            if (!mh.isValid())
               fail("timestamped update returned the invalid retraction handle");
            rti.retract(mh);
            try
            {
               rti.retract(mh);
               fail("second retract did not throw");
            }
            catch (InvalidMessageRetractionHandle const &)
            {
               say("ok InvalidMessageRetractionHandle");
            }
         }
         AttributeHandleValueMap v;
         v[h.speed] = data(text("speed-" + std::to_string(t + 1)));
         MessageRetractionHandle sent = rti.updateAttributeValues(o, v, data(text("s")),
                                                                  *at(t + 1));
         before = f.grants;
         rti.timeAdvanceRequest(*at(t + 1));
         f.await([&] { return f.grants > before; }, "grant");
         if (i == 0)
         {
            // Its time is no longer ahead of this federate's.
            try
            {
               rti.retract(sent);
               fail("retract after the grant did not throw");
            }
            catch (MessageCanNoLongerBeRetracted const &)
            {
               say("ok MessageCanNoLongerBeRetracted");
            }
         }
         say("step " + std::to_string(i + 1));
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
              : (f.role == "oa" || f.role == "ob") ? ownership(f, *rti, fed, fom)
              : (f.role == "sa" || f.role == "sb") ? saveRestore(f, *rti, fed, fom)
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
