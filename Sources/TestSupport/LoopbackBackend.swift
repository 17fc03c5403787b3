public import CheckInModels
public import DevServer

/// The reference backend (`DevServer`) on 127.0.0.1, on a free port of its own, with its database
/// in a temporary directory: the real HTTP a device talks to, with the server's fault injection.
/// It stops when it is let go (or at `stop()`); `start()` brings it back on the same port with the
/// same database, as a backend that was down and comes back up.
public final class LoopbackBackend {
    /// The one device the server knows by default, and its token.
    public static let device = "device-1"
    public static let token = "token-for-device-1"

    public let directory: TemporaryDirectory
    public private(set) var server: DevServer
    private let tokens: [String: String]
    private let names: [String: String]
    private let clock: @Sendable () -> WallTime

    /// - Parameters:
    ///   - names: the devices' names, by device id (`GET /v1/device`).
    ///   - clock: the server's wall clock (a `SettableWallClock` for tests of deadlines).
    public init(tokens: [String: String] = [LoopbackBackend.token: LoopbackBackend.device],
                faults: FaultUpdate = FaultUpdate(), names: [String: String] = [:],
                clock: @escaping @Sendable () -> WallTime = DevServer.systemClock) throws {
        directory = try TemporaryDirectory(prefix: "lifesignal-backend")
        self.tokens = tokens
        self.names = names
        self.clock = clock
        server = try DevServer(DevServer.Options(databasePath: directory.file("server.sqlite"), tokens: tokens, faults: faults,
                                                 names: names, clock: clock))
    }

    deinit {
        server.stop()
    }

    public var baseURL: String { server.baseURL }
    public var port: UInt16 { server.port }

    /// Stops serving: connections are refused until `start()`.
    public func stop() {
        server.stop()
    }

    /// Serves again on the same port, from the same database.
    public func start(faults: FaultUpdate = FaultUpdate()) throws {
        server.stop()
        server = try DevServer(DevServer.Options(databasePath: directory.file("server.sqlite"), port: server.port,
                                                 tokens: tokens, faults: faults, names: names, clock: clock))
    }

    /// The ids of the check-ins the server stored for `device`, in the order they arrived.
    public func storedIDs(device: String = LoopbackBackend.device) throws -> [String] {
        try server.storedCheckIns(device: device).map(\.checkIn.id)
    }

    /// A token file as a device reads it (`[uplink] token_file`): owner-only unless `mode` says otherwise.
    public func tokenFile(_ token: String = LoopbackBackend.token, mode: UInt32 = 0o600) throws -> String {
        try directory.write("token-\(directory.list(directory.path).count)", "\(token)\n", mode: mode)
    }
}
