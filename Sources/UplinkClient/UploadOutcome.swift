public import CheckInModels

/// What a target did with a batch: the ids it stored (now or before) and the ids it refused for
/// good, each with its message. Ids in neither list were not taken and are sent again.
public struct UploadOutcome: Hashable, Sendable {
    public var acknowledged: [CheckInID]
    public var refused: [RefusedItem]

    public init(acknowledged: [CheckInID], refused: [RefusedItem] = []) {
        self.acknowledged = acknowledged
        self.refused = refused
    }
}

/// `POST /v1/heartbeat`: the device is alive, and how far behind its upload queue is.
public struct DeviceHeartbeat: Hashable, Sendable {
    public var bootID: String
    public var uptime: Duration
    public var queueDepth: Int

    public init(bootID: String, uptime: Duration, queueDepth: Int) {
        self.bootID = bootID
        self.uptime = uptime
        self.queueDepth = queueDepth
    }
}
