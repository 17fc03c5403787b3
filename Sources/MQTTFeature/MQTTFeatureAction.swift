public import CheckInModels
public import CheckInStoreClient
public import MQTTClient
public import UploadFeature

extension MQTTFeature {
    public enum Action: Equatable, Sendable {
        /// Connect, and keep connecting while the daemon runs.
        case start
        /// Say `offline`, disconnect cleanly (no last will), stop retrying.
        case stop
        /// The clean disconnect at `stop` has finished.
        case stopped
        /// The client's word on the connection.
        case connection(MQTTConnectionEvent)
        /// A message on a subscription: a command, or Home Assistant announcing itself.
        case message(MQTTInboundMessage)
        /// The backoff after a failure has passed.
        case retryDue
        /// The network may be back: an attempt waiting out its backoff happens now.
        case networkChanged
        /// The broker has been away for `faultGrace`.
        case faultGraceEnded
        /// The new connection is announced (discovery, state, `online`) and subscribed to the
        /// commands; the failure, if one of them failed.
        case announced(MQTTFailure?)
        /// A state message on its own, or Home Assistant's second announcement, has been
        /// handed to the broker (or failed with the connection).
        case statePublished
        /// The topics a watcher hears its dependents on (their availability and state): subscribed
        /// now if connected, and at every connection.
        case peerTopicsChanged([String])
        case peersSubscribed(MQTTFailure?)
        /// The watchers the person removed: their commands are refused.
        case refusedWatchersChanged(Set<String>)
        /// The device's state changed (sent by the device feature whenever it does).
        case deviceChanged(MQTTDeviceState)
        /// Something happened that automations hear of: stored, then published in order.
        case eventOccurred(MQTTDeviceEvent)
        case eventStored(Result<DeviceEvent, StoreFailure>)
        /// The events' uploader.
        case events(UploadFeature<DeviceEvent>.Action)
        case delegate(Delegate)

        public enum Delegate: Equatable, Sendable {
            /// `ask_if_ok`: raise a ping on the device.
            case askIfOK
            /// `identify`: show the identify pattern.
            case identify
            /// `check_in` (remote check-in allowed): check in with source `mqtt`.
            case checkIn
            /// `away` (remote away allowed): away mode for this long.
            case away(Duration)
            /// `away_end`: end away mode.
            case awayEnd
            /// `clear_ping`: a watcher withdrew its ping.
            case clearPing
            /// `on_it`: this watcher is on the way.
            case onIt(String)
            /// A watcher device's registration on `<base>/watchers/<id>`, for the responders.
            case watcherMessage(MQTTInboundMessage)
            /// A message on a dependent's topic, for the watcher's dependents.
            case peerMessage(MQTTInboundMessage)
            /// An event could not be stored: the store has a problem.
            case eventNotStored(StoreFailure)
        }
    }
}
