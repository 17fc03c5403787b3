/// A help alert's identity: a random UUID v4 like a check-in's, and the upload's idempotency key.
public typealias AlertID = CheckInID

/// What asked for help.
public enum AlertSource: String, Hashable, Sendable, CaseIterable {
    /// A long press on the button (after the cancel window).
    case button
    /// `lifesignalctl alert send` (after the cancel window).
    case cli
}

/// A help alert, as it is about to be written (`upload` pending) and as the store keeps it;
/// `upload` turns `.uploaded` only once the backend acknowledged it.
public struct AlertRecord: Hashable, Sendable, Identifiable {
    public var id: AlertID
    /// When the person asked for help: the long press (or the CLI request), not the end of the
    /// cancel window.
    public var at: DeviceInstant
    public var source: AlertSource
    public var upload: UploadState

    public init(id: AlertID, at: DeviceInstant, source: AlertSource, upload: UploadState = .pending) {
        self.id = id
        self.at = at
        self.source = source
        self.upload = upload
    }
}
