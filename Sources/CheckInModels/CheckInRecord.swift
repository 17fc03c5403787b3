/// Where a check-in came from.
public enum CheckInSource: String, Hashable, Sendable, CaseIterable {
    case button
    case cli
    /// `<base>/cmd/check_in` on the MQTT broker (`[mqtt] remote_check_in`): an automation, perhaps
    /// not a person, so it is never recorded as a press.
    case mqtt
}

/// Whether a stored check-in has reached the backend yet.
public enum UploadState: Hashable, Sendable {
    case pending
    case uploaded(at: WallTime)
}

/// A check-in about to be written: everything but its upload state.
public struct NewCheckIn: Hashable, Sendable {
    public var id: CheckInID
    public var at: DeviceInstant
    public var source: CheckInSource

    public init(id: CheckInID, at: DeviceInstant, source: CheckInSource) {
        self.id = id
        self.at = at
        self.source = source
    }
}

/// A check-in as the store keeps it.
public struct CheckInRecord: Hashable, Sendable, Identifiable {
    public var id: CheckInID
    public var at: DeviceInstant
    public var source: CheckInSource
    public var upload: UploadState

    public init(id: CheckInID, at: DeviceInstant, source: CheckInSource, upload: UploadState = .pending) {
        self.id = id
        self.at = at
        self.source = source
        self.upload = upload
    }

    public init(_ new: NewCheckIn, upload: UploadState = .pending) {
        self.init(id: new.id, at: new.at, source: new.source, upload: upload)
    }
}
