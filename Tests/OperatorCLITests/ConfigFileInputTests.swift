import DeviceConfig
import Glibc
@testable import OperatorCLI
import Synchronization
import TestSupport
import XCTest

/// What `config check` (and lifesignald, through the same reader) does with a config path that is
/// not a plain UTF-8 text file.
final class ConfigFileInputTests: XCTestCase {
    /// Loads on a thread of its own so that a reader blocked on a FIFO fails the test instead of
    /// hanging the suite; `release` unblocks such a reader afterwards.
    private func loadWithin(_ seconds: Int, _ path: String, release: () -> Void = {}) -> Result<ConfigurationFile.Loaded, ConfigurationFile.Failure>? {
        final class Box: @unchecked Sendable { var outcome: Result<ConfigurationFile.Loaded, ConfigurationFile.Failure>? }
        let box = Box()
        let done = Mutex(false)
        var thread = pthread_t()
        let job = Unmanaged.passRetained(JobContext { box.outcome = ConfigSource.load(explicitPath: path, environment: ["HOME": "/home/ada"]) ; done.withLock { $0 = true } })
        pthread_create(&thread, nil, { context in
            Unmanaged<JobContext>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, job.toOpaque())
        var waited = 0
        while !done.withLock({ $0 }) && waited < seconds * 100 {
            usleep(10_000)
            waited += 1
        }
        let finished = done.withLock { $0 }
        if !finished { release() }
        pthread_join(thread, nil)
        return finished ? box.outcome : nil
    }

    func testAFIFOIsRefusedInsteadOfWaitingForAWriter() throws {
        let directory = try TemporaryDirectory()
        let path = "\(directory.path)/lifesignald.toml"
        XCTAssertEqual(mkfifo(path, 0o600), 0)
        let outcome = loadWithin(10, path) {
            // Let the blocked reader go: a writer that closes at once.
            let writer = open(path, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
        }
        guard let outcome else { return XCTFail("reading a FIFO as the config file blocked for 10 s") }
        guard case let .failure(failure) = outcome else { return XCTFail("a FIFO was accepted as the config file") }
        XCTAssertEqual(failure.message, "cannot read config file \(path): it is a FIFO (named pipe), not a regular file; "
                       + "give the path of the file itself")
    }

    func testADirectoryOrADeviceIsRefused() throws {
        let directory = try TemporaryDirectory()
        guard case let .failure(folder) = ConfigSource.load(explicitPath: directory.path, environment: [:]) else {
            return XCTFail("a directory was accepted as the config file")
        }
        XCTAssertTrue(folder.message.contains("it is a directory, not a regular file"), folder.message)
        guard case let .failure(device) = ConfigSource.load(explicitPath: "/dev/zero", environment: [:]) else {
            return XCTFail("a device was accepted as the config file")
        }
        XCTAssertTrue(device.message.contains("it is a character device, not a regular file"), device.message)
    }

    func testInvalidUTF8IsRefusedWithItsLineAndByteOffset() throws {
        let directory = try TemporaryDirectory()
        let path = "\(directory.path)/lifesignald.toml"
        // A stray byte in the store's path used to become U+FFFD: a valid config, a store elsewhere.
        let bytes = Array("[log]\nlevel = \"info\"\n[store]\npath = \"/var/lib/a".utf8) + [0xFF] + Array("b.sqlite\"\n".utf8)
        let file = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
        XCTAssertEqual(bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }, bytes.count)
        close(file)

        guard case let .failure(failure) = ConfigSource.load(explicitPath: path, environment: ["HOME": "/home/ada"]) else {
            return XCTFail("invalid UTF-8 was accepted")
        }
        XCTAssertEqual(failure.message, "\(path):4:19: the file is not valid UTF-8 at byte offset 47 (0xFF); save it as UTF-8")
    }
}

private final class JobContext {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}
