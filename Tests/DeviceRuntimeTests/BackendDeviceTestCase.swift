import DevServer
import TestSupport
import XCTest

/// The fixture of every test of the whole device against the reference backend: a temporary
/// directory, the backend on a free 127.0.0.1 port, and the device a test starts, stopped after it.
@MainActor
class BackendDeviceTestCase: XCTestCase {
    /// Names the temporary directory, so a failed run's leftovers say whose they are.
    class var directoryPrefix: String { "lifesignal-device" }

    var directory: TemporaryDirectory!
    var backend: LoopbackBackend!
    var device: RunningDevice?

    override func setUp() async throws {
        directory = try TemporaryDirectory(prefix: Self.directoryPrefix)
        backend = try LoopbackBackend()
    }

    override func tearDown() async throws {
        await device?.stop()
        device = nil
        backend = nil
        directory = nil
    }
}
