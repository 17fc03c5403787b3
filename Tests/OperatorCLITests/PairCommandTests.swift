import ArgumentParser
import CheckInModels
import DevServer
import DeviceAPI
import DeviceConfig
import Foundation
import Glibc
import LinuxIO
@testable import OperatorCLI
import TerminalQRCode
import TestSupport
import XCTest

/// `lifesignalctl pair`: which source the code names, its name and heartbeat, the refusals, and
/// what is printed.
final class PairCommandTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory = nil
    }

    private func configuration(_ toml: String) throws -> DeviceConfiguration {
        let path = try directory.write("lifesignald.toml", "[store]\npath = \"\(directory.path)/store.sqlite\"\n" + toml)
        switch ConfigSource.load(explicitPath: path, environment: [:]) {
        case let .success(loaded): return loaded.configuration
        case let .failure(failure): throw TestFailure(failure.message)
        }
    }

    private func lookups(backend: @escaping (UplinkConfiguration) -> Result<DeviceIdentity, PairFailure> = { _ in
        .failure(PairFailure("the backend was asked"))
    }) -> PairingCodeSource.Lookups {
        PairingCodeSource.Lookups(derivedMQTTID: { "0123456789ab" }, hostName: { "kitchen-pi" }, backendDevice: backend)
    }

    private func code(_ configuration: DeviceConfiguration, _ kind: PairingCodeSource.Kind? = nil, name: String? = nil,
                      lookups: PairingCodeSource.Lookups? = nil) -> Result<PairingCode, PairFailure> {
        PairingCodeSource.code(configuration, kind: kind, name: name, lookups: lookups ?? self.lookups())
    }

    // MARK: Sources

    func testWithMQTTTheCodeNamesTheDaemonsTopicAndAllowsTwiceTheLastWill() throws {
        let configuration = try configuration("[mqtt]\nhost = \"127.0.0.1\"\ndevice_name = \"Mum\"\nkeep_alive = \"30s\"\n")
        let code = try code(configuration).get()
        XCTAssertEqual(code, PairingCode(source: .mqtt(baseTopic: "lifesignal/0123456789ab"), name: "Mum", heartbeat: .seconds(90)))
        XCTAssertEqual(try PairingCode(parsing: code.text), code)
        // The default keep-alive (60 s) gives the watcher's default allowance.
        let defaults = try self.code(try self.configuration("[mqtt]\nhost = \"127.0.0.1\"\n")).get()
        XCTAssertEqual(defaults.heartbeat, DependentEntry.defaultHeartbeat)
        XCTAssertEqual(defaults.name, "kitchen-pi", "without device_name the host name")
    }

    func testAConfiguredDeviceIDAndBaseTopicAreTheOnesInTheCode() throws {
        let configuration = try configuration("[mqtt]\nhost = \"127.0.0.1\"\ndevice_id = \"hall\"\n")
        XCTAssertEqual(try code(configuration).get().source, .mqtt(baseTopic: "lifesignal/hall"))
        let custom = try self.configuration("[mqtt]\nhost = \"127.0.0.1\"\nbase_topic = \"home/gran\"\n")
        XCTAssertEqual(try code(custom).get().source, .mqtt(baseTopic: "home/gran"))
    }

    func testMQTTComesFirstThenTheBackendThenHealthchecksUnlessAsked() throws {
        let keyFile = try directory.write("hc.key", String(repeating: "k", count: 32) + "\n")
        let all = try configuration("""
            [mqtt]
            host = "127.0.0.1"
            [uplink]
            url = "http://127.0.0.1:9"
            token_file = "\(directory.path)/token"
            [healthchecks]
            api_key_file = "\(keyFile)"
            slug_prefix = "gran"
            """)
        let backend = lookups { _ in .success(DeviceIdentity(id: "device-7", name: nil)) }
        XCTAssertEqual(try code(all, lookups: backend).get().source, .mqtt(baseTopic: "lifesignal/0123456789ab"))
        XCTAssertEqual(try code(all, .backend, lookups: backend).get().source, .backend(id: "device-7"))
        let healthchecks = try code(all, .healthchecks, lookups: backend).get()
        XCTAssertEqual(healthchecks.source, .healthchecks(check: "gran-check-in"))
        XCTAssertEqual(healthchecks.heartbeat, .seconds(1800), "twice the default 15 min heartbeat")
    }

    func testAHealthchecksPingURLGivesItsUUIDOrSlug() throws {
        let uuid = "5b1c3e7a-0d6f-4b8e-9a51-2f4c8d7e6a10"
        let byUUID = try configuration("[healthchecks]\ncheck_in_url = \"https://hc-ping.com/\(uuid)\"\n")
        XCTAssertEqual(try code(byUUID).get().source, .healthchecks(check: uuid))
        let bySlug = try configuration("[healthchecks]\ncheck_in_url = \"https://hc-ping.com/abcdefghijklmnopqrstuv/mum-check-in\"\n")
        XCTAssertEqual(try code(bySlug).get().source, .healthchecks(check: "mum-check-in"))
    }

    // MARK: Refusals

    func testWithNoSourceTheErrorSaysWhatAWatcherNeeds() throws {
        let failure = try XCTUnwrap(code(try configuration("")).failure)
        for needed in ["[mqtt]", "[uplink]", "[healthchecks]", "a watcher needs one of"] {
            XCTAssertTrue(failure.message.contains(needed), failure.message)
        }
    }

    func testASourceThatIsNotConfiguredIsRefusedNamingTheOthers() throws {
        let failure = try XCTUnwrap(code(try configuration("[mqtt]\nhost = \"127.0.0.1\"\n"), .backend).failure)
        XCTAssertEqual(failure.message, "--source backend: this device has no [uplink] section (the LifeSignal backend); "
                       + "it can pair through mqtt")
    }

    func testAnUnknownSourceIsABadArgument() {
        XCTAssertThrowsError(try LifesignalCtl.parseAsRoot(["pair", "--source", "pigeon"])) { error in
            XCTAssertEqual(LifesignalCtl.exitCode(for: error).rawValue, 64)
            XCTAssertTrue(LifesignalCtl.fullMessage(for: error).contains("'mqtt', 'backend' or 'healthchecks'"))
        }
    }

    func testANameTheCodeCannotCarryIsRefused() throws {
        let configuration = try configuration("[mqtt]\nhost = \"127.0.0.1\"\n")
        XCTAssertEqual(try code(configuration, name: "  Gran  ").get().name, "Gran")
        XCTAssertEqual(code(configuration, name: " ").failure?.message, "cannot make a pairing code: the name is empty")
        XCTAssertTrue(code(configuration, name: "Gran\u{1B}[2J").failure?.message.contains("control character") ?? false)
        XCTAssertTrue(code(configuration, name: String(repeating: "x", count: 49)).failure?.message.contains("longer than 48") ?? false)
        let long = try self.configuration("[mqtt]\nhost = \"127.0.0.1\"\ndevice_name = \"\(String(repeating: "x", count: 60))\"\n")
        XCTAssertTrue(code(long).failure?.message.hasSuffix("give one with --name") ?? false)
    }

    // MARK: The backend

    func testTheBackendsIdIsAskedForWithTheDevicesToken() throws {
        let server = try OneReplyServer(status: 200, body: #"{"id": "dev-42", "name": "Mum"}"#)
        let uplink = UplinkConfiguration(url: server.url, tokenFile: try tokenFile("good-token"), timeout: .seconds(5))
        XCTAssertEqual(BackendDeviceLookup.device(uplink), .success(DeviceIdentity(id: "dev-42", name: "Mum")))
        let request = try XCTUnwrap(server.request())
        XCTAssertTrue(request.hasPrefix("GET /v1/device HTTP/1.1\r\n"), request)
        XCTAssertTrue(request.contains("\r\nAuthorization: Bearer good-token\r\n"), request)
    }

    func testTheBackendsRefusalsSayWhatToDo() throws {
        let cases: [(Int, String, String)] = [
            (401, "", "refused the device's token (HTTP 401)"),
            (404, "", "has no such endpoint (HTTP 404)"),
            (503, "", "answered HTTP 503"),
            (200, #"{"name": "Mum"}"#, "the backend's answer is not a device (missing field 'id')"),
            (200, "<html>", "the backend's answer is not a device"),
        ]
        for (status, body, message) in cases {
            let server = try OneReplyServer(status: status, body: body)
            let uplink = UplinkConfiguration(url: server.url, tokenFile: try tokenFile("good-token"), timeout: .seconds(5))
            let failure = try XCTUnwrap(BackendDeviceLookup.device(uplink).failure, "\(status)")
            XCTAssertTrue(failure.message.contains(message), failure.message)
            XCTAssertFalse(failure.message.contains("good-token"))
        }
    }

    /// The reference backend answers with the id it knows the device by.
    func testTheReferenceBackendNamesTheDevicesId() throws {
        let server = try DevServer(DevServer.Options(databasePath: "\(directory.path)/server.sqlite", tokens: ["good-token": "device-1"]))
        defer { server.stop() }
        let uplink = UplinkConfiguration(url: server.baseURL, tokenFile: try tokenFile("good-token"), timeout: .seconds(5))
        XCTAssertEqual(BackendDeviceLookup.device(uplink), .success(DeviceIdentity(id: "device-1", name: nil)))
    }

    func testAnUnreadableTokenFileIsNamed() throws {
        let path = try tokenFile("good-token", mode: 0o644)
        let failure = try XCTUnwrap(BackendDeviceLookup.device(UplinkConfiguration(url: "http://127.0.0.1:9", tokenFile: path,
                                                                                      timeout: .seconds(1))).failure)
        XCTAssertTrue(failure.message.contains(path), failure.message)
    }

    private func tokenFile(_ token: String, mode: mode_t = 0o600) throws -> String {
        let path = try directory.write("token", token + "\n")
        chmod(path, mode)
        return path
    }

    // MARK: Output

    let mum = PairingCode(source: .mqtt(baseTopic: "lifesignal/0123456789ab"), name: "Mum", heartbeat: .seconds(90))

    func testJSONHasExactlyTheFiveFields() throws {
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(PairingOutput.json(mum).utf8)) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["code", "source", "address", "name", "heartbeat_seconds"])
        XCTAssertEqual(object["code"] as? String, "LS1-000J-6HB7-H6NN-MKBN-DMF9-3")
        XCTAssertEqual(object["source"] as? String, "mqtt")
        XCTAssertEqual(object["address"] as? String, "lifesignal/0123456789ab")
        XCTAssertEqual(object["name"] as? String, "Mum")
        XCTAssertEqual(object["heartbeat_seconds"] as? Int, 90)
    }

    func testTheTextHasTheCodeTheQRCodeAndWhatToDoOnTheWatcher() throws {
        let matrix = try PairingOutput.qrCode(mum)
        let text = PairingOutput.text(mum, qrCode: .success(matrix), style: .plain)
        XCTAssertTrue(text.contains("\n    LS1-000J-6HB7-H6NN-MKBN-DMF9-3\n"), text)
        XCTAssertTrue(text.hasSuffix("On the watcher's device, run:\n    lifesignalctl dependents add LS1-000J-6HB7-H6NN-MKBN-DMF9-3"))
        XCTAssertTrue(text.contains(QRRendering.halfBlocks(matrix, colours: false).joined(separator: "\n")))
        XCTAssertTrue(PairingOutput.text(mum, qrCode: .success(matrix), style: .ascii).contains("##"))
    }

    func testWithoutLibqrencodeTheCodeIsPrintedWithOneLineSayingWhatToInstall() throws {
        let result = Result { () throws(QRUnavailable) in
            try PairingOutput.qrCode(mum, load: { () throws(LibraryUnavailable) in try LibQRencode.load(soname: "libqrencode-absent.so.4") })
        }
        let text = PairingOutput.text(mum, qrCode: result, style: .colours)
        XCTAssertTrue(text.contains("\n    LS1-000J-6HB7-H6NN-MKBN-DMF9-3\n"), text)
        let notes = text.split(separator: "\n").filter { $0.hasPrefix("(No QR code") }
        XCTAssertEqual(notes.count, 1, text)
        XCTAssertTrue(notes.first?.contains("sudo apt install libqrencode4") ?? false, text)
        XCTAssertFalse(text.contains("\u{1B}"), "no QR code, no colours")
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case let .failure(failure) = self { return failure }
        return nil
    }
}

/// An HTTP server on 127.0.0.1 that answers one request with a fixed reply and keeps the request.
private final class OneReplyServer: @unchecked Sendable {  // the request is read after `done` is signalled
    let url: String
    private let listener: Int32
    private var received = ""
    private let done = DispatchSemaphore(value: 0)

    init(status: Int, body: String) throws {
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listener = listener
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else { throw TestFailure("cannot listen on 127.0.0.1") }
        url = "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
        let reply = "HTTP/1.1 \(status) Reply\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n" + body
        Thread.detachNewThread { [self] in
            defer { done.signal() }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !bytes.ends(with: Array("\r\n\r\n".utf8)) {
                let count = read(connection, &buffer, buffer.count)
                guard count > 0 else { return }
                bytes += buffer.prefix(count)
            }
            received = String(decoding: bytes, as: UTF8.self)
            _ = Array(reply.utf8).withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
        }
    }

    /// The request's head, once it was answered.
    func request() -> String? {
        done.wait()
        return received
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
