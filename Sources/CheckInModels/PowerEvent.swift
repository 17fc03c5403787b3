/// Something that happened to the device itself that the people who look after the person should
/// hear about: the mains power going and coming back, the battery running low, a restart nobody
/// asked for. Stored durably, then sent to every target once, like a help alert.
public struct PowerEvent: Hashable, Sendable, Identifiable {
    public var id: CheckInID
    public var at: DeviceInstant
    public var kind: PowerEventKind
    /// More words for people (the previous run's boot, how long on battery); may be empty.
    public var detail: String
    public var upload: UploadState

    public init(id: CheckInID, at: DeviceInstant, kind: PowerEventKind, detail: String = "", upload: UploadState = .pending) {
        self.id = id
        self.at = at
        self.kind = kind
        self.detail = detail
        self.upload = upload
    }

    /// One line for people: `running on battery (the mains power is off)`.
    public var summary: String {
        detail.isEmpty ? kind.words : "\(kind.words) (\(detail))"
    }
}

public enum PowerEventKind: String, Hashable, Sendable, CaseIterable {
    /// The mains-present line went inactive: the device runs on its battery.
    case onBattery = "on_battery"
    /// The mains-present line is active again.
    case powerRestored = "power_restored"
    /// The low-battery line went active: the device checkpoints and stops cleanly.
    case lowBattery = "low_battery"
    /// The previous run did not stop cleanly (a power cut without a battery, a crash, SIGKILL).
    case unexpectedRestart = "unexpected_restart"

    public var words: String {
        switch self {
        case .onBattery: "running on battery"
        case .powerRestored: "power restored"
        case .lowBattery: "battery low: the device is stopping cleanly"
        case .unexpectedRestart: "the device restarted unexpectedly"
        }
    }
}
