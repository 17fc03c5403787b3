public import CheckInModels
public import MQTTClient

extension RespondersFeature {
    /// Who the device tells when the person needs someone, where each was heard of, and what the
    /// person at the device last asked for.
    public struct State: Equatable, Sendable {
        public var paths: ResponderPaths
        /// Every responder, watchers first (in the order they confirmed), then each polled source's.
        public var responders: [Responder] = []
        /// Watchers the person removed: their registrations are not listed and their pings are refused.
        public var removedWatchers: [RemovedWatcher] = []
        /// The device's broker connection is up: watchers can hear the person now.
        public var brokerConnected = false
        /// Watchers listed before the connection came back, not heard again yet: a registration
        /// cleared while the device was away is not replayed, so those still here when
        /// `replayWindow` ends have gone.
        public var awaitingReplay: Set<String> = []
        /// Removals and allowances the broker has not taken yet, by watcher id.
        public var owedToWatchers: [String: WatcherWire.Registration] = [:]
        public var isLoading = false
        public var isLoaded = false
        /// A polled source's last failure, by kind; nil once it answers. Its last list stays, marked.
        public var sourceFailures: [String: String] = [:]
        /// The polled sources that have answered (or failed) since the start.
        public var polled: Set<String> = []
        /// The polled sources a refresh (`lifesignalctl responders`) still waits for.
        public var refreshing: Set<String> = []
        /// The start's wait for everyone has ended; the reach line goes to the log once every
        /// polled source has also answered (or failed).
        public var announceDue = false
        /// The reach line went to the log once, after the start had time to hear everyone.
        public var reachAnnounced = false
        /// The seed's alerts: a watcher confirmed (added), one already listed under that name
        /// (exists), removed, allowed again, stopped watching.
        public var message: ResponderMessage?
        /// The last registration that could not be read (a topic and why), for the log and status.
        public var unreadRegistration: String?
        /// The seed's error: something asked of the list failed. Dismissed with `dismiss-error`.
        public var error: String?

        public init(paths: ResponderPaths) {
            self.paths = paths
        }

        public func responder(named name: String) -> Responder? {
            let wanted = name.lowercased()
            return responders.first { $0.name.lowercased() == wanted }
                ?? responders.first { $0.sourcedName.lowercased() == wanted }
                ?? responders.first { $0.source.address == name }
        }

        public func removedWatcher(named name: String) -> RemovedWatcher? {
            removedWatchers.first { $0.name.lowercased() == name.lowercased() } ?? removedWatchers.first { $0.id == name }
        }

        /// Every configured polled source has answered or failed at least once.
        public var everySourceAsked: Bool {
            paths.polledKinds.allSatisfy { polled.contains($0) }
        }

        /// The refusal for a name nobody has, with the names there are.
        public func unknownName(_ name: String) -> String {
            let names = responders.map(\.name)
            return "no responder is called \(TerminalText.quoted(String(name.prefix(64))))"
                + (names.isEmpty ? " (there are none: lifesignalctl pair prints a code a watcher adds)"
                    : "; there are: \(names.joined(separator: ", "))")
        }

        /// The ids whose commands the device refuses.
        public var refusedWatcherIDs: Set<String> { Set(removedWatchers.map(\.id)) }

        /// Who is told of what, now: the one answer `responders`, `doctor` and the start-up log give.
        public var reach: Reach { Reach(self) }
    }

    public enum ResponderMessage: Equatable, Sendable {
        case added(String)
        case alreadyExists(String)
        case removed(String)
        case allowed(String)
        case stoppedWatching(String)
        case noLongerRegistered(String)

        public var text: String {
            switch self {
            case let .added(name): "\(name) confirmed: their watcher device is told when a check-in is missed or help is asked for"
            case let .alreadyExists(name):
                "a second responder is called \(name): listed with where it comes from, to tell the two apart"
            case let .removed(name): "\(name) removed: their watcher's pings and \"I'm on it\" are refused"
            case let .allowed(name): "\(name) allowed again: their watcher is listed once it confirms"
            case let .stoppedWatching(name): "\(name) stopped watching (their watcher removed this device)"
            case let .noLongerRegistered(names):
                "\(names): no longer registered on the broker (their watcher removed this device while it was away, or the "
                    + "broker lost its retained messages): not counted until it registers again"
            }
        }
    }
}
