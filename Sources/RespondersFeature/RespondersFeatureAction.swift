public import CheckInModels
public import CheckInStoreClient
public import MQTTClient
public import UplinkClient

extension RespondersFeature {
    public enum Action: Equatable, Sendable {
        /// The daemon started (the seed's `onAppear`): load the removed watchers, ask the polled
        /// sources, and say who is told once the start had time to hear everyone.
        case onAppear
        case loaded(Result<[RemovedWatcher], StoreFailure>)
        /// The daemon is stopping: no more polls.
        case stop
        /// A message on `<base>/watchers/<id>`: a watcher's registration, a removal, a clearing.
        case watcherMessage(MQTTInboundMessage)
        /// The device's broker connection came up (true) or went (false).
        case brokerConnection(Bool)
        /// The retained registrations have had time to arrive since the connection came back.
        case replayWindowEnded
        /// The broker took a removal or an allowance for this watcher.
        case watcherTold(id: String, WatcherWire.Registration)
        /// Time to ask the polled sources again.
        case pollDue
        case polled(kind: String, Result<[SourcedResponder], UplinkFailure>)
        /// `lifesignalctl responders`: ask the polled sources now, then answer.
        case refresh
        /// Time to say who is told (once, after the start).
        case announceReach
        /// `lifesignalctl responders remove NAME`: a watcher's pings are refused from now on.
        case remove(name: String)
        case removed(RemovedWatcher, StoreFailure?)
        /// `lifesignalctl responders allow NAME`: a removed watcher may confirm again.
        case allow(name: String)
        case allowed(RemovedWatcher, StoreFailure?)
        /// The seed's `setError`.
        case setError(String?)
        case delegate(Delegate)

        public enum Delegate: Equatable, Sendable {
            /// The seed's `contactsUpdated`: who is in the list changed.
            case respondersUpdated
            /// The watchers whose commands are refused changed (the whole set).
            case refusedWatchersChanged(Set<String>)
            /// A refresh has every polled source's answer.
            case refreshed
        }
    }
}
