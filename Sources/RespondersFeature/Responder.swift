public import CheckInModels

/// Someone the device tells when the person needs someone, and the path that reaches them.
public struct Responder: Equatable, Sendable, Identifiable {
    public var source: ResponderSource
    /// As shown and as `responders show NAME` / `remove NAME` take it: unique in the list.
    public var name: String
    /// The name the source gave (shown names differ from it only to tell two apart).
    public var sourcedName: String
    /// `watcher`, `contact`, or a healthchecks integration's kind (`email`, `sms`, ...).
    public var kind: String
    /// How the source reaches them (`app`, `sms`, `email`): kinds, never an address.
    public var channels: [String]
    public var told: Set<ResponderTopic>
    /// A watcher's registration was heard then (its confirmation of the pairing).
    public var since: WallTime?

    public var id: String { source.key }

    /// What they are, in words: a watcher device (paired over MQTT or following through the
    /// backend), a backend contact, a healthchecks integration.
    public var role: String {
        kind == "watcher" ? "watcher device" : source.role
    }

    public init(source: ResponderSource, name: String, kind: String, channels: [String] = [], told: Set<ResponderTopic>,
                since: WallTime? = nil) {
        self.source = source
        self.name = name
        self.sourcedName = name
        self.kind = kind
        self.channels = channels
        self.told = told
        self.since = since
    }
}

/// Where a responder was heard of: a watcher device paired over MQTT, or a polled source.
public enum ResponderSource: Hashable, Sendable {
    /// A LifeSignal watcher device, by its MQTT device id: it hears the person's retained state.
    case watcher(id: String)
    /// A contact or watcher device the LifeSignal backend tells (`GET /v1/responders`).
    case backend(id: String)
    /// An integration of the device's healthchecks checks.
    case healthchecks(id: String)

    /// `mqtt`, `backend`, `healthchecks`: the path, and the polled source's kind.
    public var kind: String {
        switch self {
        case .watcher: "mqtt"
        case .backend: "backend"
        case .healthchecks: "healthchecks"
        }
    }

    public var address: String {
        switch self {
        case let .watcher(id), let .backend(id), let .healthchecks(id): id
        }
    }

    public var key: String { kind + ":" + address }

    /// What they are, in words: the roles.
    public var role: String {
        switch self {
        case .watcher: "watcher device"
        case .backend: "backend contact"
        case .healthchecks: "healthchecks integration"
        }
    }
}
