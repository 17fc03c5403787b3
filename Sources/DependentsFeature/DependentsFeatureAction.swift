public import CheckInModels
public import CheckInStoreClient
public import MQTTClient
public import UplinkClient
public import DependentsClient

extension DependentsFeature {
    public enum Action: Equatable, Sendable {
        /// The daemon started (the seed's `onAppear`): load the dependents added by code and the
        /// sort option, then start listening and polling.
        case onAppear
        case loaded(Result<StoredDependents, StoreFailure>)
        /// The daemon is stopping: no more polls or wake-ups.
        case stop
        /// The device's broker connection came up (true) or went (false).
        case brokerConnection(Bool)
        /// The broker took the clearing of this registration topic.
        case clearingSent(String)
        /// A message on one of the dependents' MQTT topics.
        case peerMessage(MQTTInboundMessage)
        /// Time to ask the polled sources again.
        case pollDue
        case polled(kind: String, Result<[String: SourcedDependent], UplinkFailure>)
        /// Someone's heartbeat allowance may have run out.
        case silenceCheckDue
        /// The seed's `setSortOption`: kept in the store.
        case setSortOption(DependentsSortOption)
        case sortOptionSaved(StoreFailure?)
        /// The seed's add-contact flow: a pairing code, and the name to show (the code's if nil).
        case add(PairingCode, name: String?)
        case added(DependentEntry, StoreFailure?)
        case remove(name: String)
        case removed(name: String, StoreFailure?)
        /// The seed's ping flow (steps 4 and 5).
        case ping(name: String)
        case pingSent(name: String, failure: String?)
        case clearPing(name: String)
        case pingCleared(name: String, failure: String?)
        /// "I'm on it", to someone who needs someone.
        case onIt(name: String)
        case onItSent(name: String, failure: String?)
        /// The watcher's button: "I'm on it" to whoever needs someone; otherwise the first press
        /// starts the confirmation window for pinging everyone and a second press cancels it.
        case buttonPressed
        case confirmationEnded
        /// A device that is both: its press checked in; "I'm on it" to whoever needs someone.
        case answerThoseWhoNeedSomeone
        /// The seed's `setError`.
        case setError(String?)
        case delegate(Delegate)

        public enum Delegate: Equatable, Sendable {
            /// The seed's `contactsUpdated`: the list (who is in it) changed.
            case contactsUpdated
            /// The MQTT topics to hear changed: subscribe to these (the whole set).
            case subscriptionsChanged([String])
        }
    }
}
