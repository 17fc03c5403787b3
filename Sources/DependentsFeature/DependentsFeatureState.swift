public import CheckInModels
import MQTTClient

extension DependentsFeature {
    /// The people this watcher looks after, how each is doing, and what the watcher's button is doing.
    public struct State: Equatable, Sendable {
        /// How this watcher signs its pings and "I'm on it" (`[device] name`).
        public var watcherName: String
        /// This device's MQTT id: how its registration and commands name it to a person's device
        /// (docs/mqtt.md, "Watchers"); nil without `[mqtt]`.
        public var watcherID: String?
        /// The device's broker connection is up: registrations go now, and again at each connection.
        public var brokerConnected = false
        /// Registrations this watcher cleared (it stopped following) that the broker has not taken
        /// yet, by topic: sent at the next connection, or the person's device would go on
        /// counting this watcher as told.
        public var owedClearings: Set<String> = []
        /// From `[[dependents]]` in the config: always there, cannot be removed from the CLI.
        public var configured: [DependentEntry]
        /// Every dependent, configured and added, in the order added.
        public var dependents: [Dependent] = []
        public var sortOption: DependentsSortOption = .status
        public var isLoading = false
        public var isLoaded = false
        /// Since when the watcher has been watching (monotonic): "nothing heard yet" runs from here.
        public var watchingSince: Duration?
        /// A polled source's last failure, by kind (`backend`, `healthchecks`); nil once it answers.
        public var sourceFailures: [String: String] = [:]
        /// When each polled source last answered (monotonic).
        public var lastPolled: [String: Duration] = [:]
        /// The watcher's press asked to ping everyone: sent when the window ends, unless a second
        /// press cancels it.
        public var confirmingPingAll = false
        /// The seed's error: something the person at the watcher asked for failed. Dismissed by
        /// `dismissError`; never hides a dependent's status.
        public var error: String?
        /// The last thing done that the person at the watcher should hear of ("Pinged Mum").
        public var lastOutcome: String?

        public init(watcherName: String, watcherID: String? = nil, configured: [DependentEntry] = []) {
            self.watcherName = watcherName
            self.watcherID = watcherID
            self.configured = configured
        }

        public func dependent(named name: String) -> Dependent? {
            dependents.first { $0.entry.name.lowercased() == name.lowercased() }
        }

        /// The refusal for a name nobody has, with the names there are.
        public func unknownName(_ name: String) -> String {
            let names = dependents.map(\.entry.name)
            return "no dependent is called \(TerminalText.quoted(String(name.prefix(64))))"
                + (names.isEmpty ? " (there are none yet: lifesignalctl dependents add CODE)" : "; there are: \(names.joined(separator: ", "))")
        }

        func index(named name: String) -> Int? {
            dependents.firstIndex { $0.entry.name.lowercased() == name.lowercased() }
        }

        /// The list as `sortOption` orders it.
        public var sorted: [Dependent] {
            dependents.sorted { lhs, rhs in
                switch sortOption {
                case .status:
                    if lhs.status.urgency != rhs.status.urgency { return lhs.status.urgency > rhs.status.urgency }
                case .deadline:
                    switch (lhs.report?.deadline, rhs.report?.deadline) {
                    case let (l?, r?) where l != r: return l < r
                    case (.some, nil): return true
                    case (nil, .some): return false
                    default: break
                    }
                case .name: break
                }
                return lhs.entry.name.lowercased() < rhs.entry.name.lowercased()
            }
        }

        /// The loudest status across the dependents (the glance); nil with nobody to watch.
        public var loudest: DependentStatus? {
            dependents.map(\.status).max { $0.urgency < $1.urgency }
        }

        /// Every MQTT topic the watcher needs to hear: each person's state and availability, and
        /// where their device says it removed this watcher.
        public var subscriptions: [String] {
            dependents.flatMap { $0.subscriptions + (registrationTopic(of: $0).map { [$0] } ?? []) }
        }

        /// Where this watcher registers with a person's device over MQTT; nil for other sources.
        public func registrationTopic(of dependent: Dependent) -> String? {
            guard let watcherID, case let .mqtt(base) = dependent.entry.source else { return nil }
            return WatcherWire.registrationTopic(base: base, watcher: watcherID)
        }
    }
}
