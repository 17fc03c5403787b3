import Glibc
import LinuxIO
import MQTTClient
import MQTTLive
import TestSupport
import XCTest

/// libmosquitto driven on the connection's own thread, against a real Mosquitto on 127.0.0.1:
/// publishing and receiving, retained messages, the last will, and each way a broker can refuse
/// or fail, each with a message that names what to fix.
final class MQTTConnectionTests: XCTestCase {
    var broker: MosquittoBroker!

    override func setUpWithError() throws {
        broker = try MosquittoBroker()
    }

    override func tearDown() {
        broker = nil
    }

    func testPublishedMessagesArriveAndRetainedOnesAreReplayedToALaterSubscriber() async throws {
        let device = try Watched(broker.settings())
        try await device.connected()
        try await device.connection.subscribe(["test/cmd/+"]).get()
        try await device.connection.publish(MQTTMessage(topic: "test/state", payload: #"{"a":1}"#, retain: true)).get()
        try await device.connection.publish(MQTTMessage(topic: "test/cmd/x", payload: "PRESS", retain: false)).get()
        try await device.waitForMessage(on: "test/cmd/x")
        XCTAssertEqual(device.messages(on: "test/cmd/x"), [MQTTInboundMessage(topic: "test/cmd/x", payload: Array("PRESS".utf8))])

        let observer = try Watched(broker.settings())
        try await observer.connected()
        try await observer.connection.subscribe(["test/state"]).get()
        try await observer.waitForMessage(on: "test/state")
        XCTAssertEqual(observer.messages(on: "test/state"),
                       [MQTTInboundMessage(topic: "test/state", payload: Array(#"{"a":1}"#.utf8), retained: true)])
    }

    func testAnOversizedPayloadArrivesWithItsSizeButNotItsBytes() async throws {
        let device = try Watched(broker.settings())
        try await device.connected()
        try await device.connection.subscribe(["big"]).get()
        let big = String(repeating: "x", count: MQTTInboundMessage.keptBytes + 1)
        try await device.connection.publish(MQTTMessage(topic: "big", payload: big, retain: false)).get()
        try await device.waitForMessage(on: "big")
        XCTAssertEqual(device.messages(on: "big").first?.size, MQTTInboundMessage.keptBytes + 1)
        XCTAssertEqual(device.messages(on: "big").first?.payload, [])
    }

    func testTheLastWillIsPublishedWhenTheConnectionDropsAndNotAfterACleanDisconnect() async throws {
        let observer = try Watched(broker.settings())
        try await observer.connected()
        try await observer.connection.subscribe(["dev/+/availability"]).get()
        let will = { (name: String) in MQTTMessage(topic: "dev/\(name)/availability", payload: "offline", retain: true) }

        let clean = try Watched(broker.settings())
        try await clean.connected(will: will("clean"))
        await clean.connection.disconnect()
        let dropped = try Watched(broker.settings())
        try await dropped.connected(will: will("dropped"))
        dropped.connection.close()  // no DISCONNECT: as if the daemon were killed

        try await observer.waitForMessage(on: "dev/dropped/availability")
        XCTAssertEqual(observer.messages(on: "dev/dropped/availability").first?.text, "offline")
        // Both went at about the same time; the broker would have sent the clean one's will by now.
        XCTAssertEqual(observer.messages(on: "dev/clean/availability"), [], "a clean disconnect sends no will")
    }

    func testTheRightPasswordIsAcceptedAndAWrongOneRefusedNamingTheFix() async throws {
        let right = try Watched(broker.settings(port: broker.passwordPort, username: MosquittoBroker.username,
                                                password: MosquittoBroker.password))
        try await right.connected()

        let wrong = try Watched(broker.settings(port: broker.passwordPort, username: MosquittoBroker.username, password: "wrong"))
        guard case let .connectFailed(failure) = try await wrong.connect() else { return XCTFail("a wrong password must be refused") }
        XCTAssertEqual(failure.kind, .refused)
        XCTAssertTrue(failure.message.contains("refused the connection"), failure.message)
        XCTAssertTrue(failure.message.contains("password_file"), failure.message)
        XCTAssertFalse(failure.message.contains("wrong"), "the password never appears: \(failure.message)")

        let anonymous = try Watched(broker.settings(port: broker.passwordPort))
        guard case let .connectFailed(refusal) = try await anonymous.connect() else { return XCTFail("anonymous must be refused") }
        XCTAssertEqual(refusal.kind, .refused, refusal.message)
    }

    func testNoBrokerOnThePortIsUnreachableAndTheNextAttemptConnectsOnceItIsThere() async throws {
        let port = try freeLoopbackPort()
        let device = try Watched(broker.settings(port: port))
        guard case let .connectFailed(failure) = try await device.connect() else { return XCTFail("nothing listens there") }
        XCTAssertEqual(failure.kind, .unreachable)
        XCTAssertTrue(failure.message.contains("connection refused"), failure.message)
        XCTAssertTrue(failure.message.contains("mqtt://127.0.0.1:\(port)"), failure.message)
        let publish = await device.connection.publish(MQTTMessage(topic: "x", payload: "y", retain: false))
        guard case let .failure(notConnected) = publish else { return XCTFail("no connection, no publish") }
        XCTAssertEqual(notConnected, MQTTFailure(.notConnected, "not connected to mqtt://127.0.0.1:\(port)"))

        let unresolvable = try Watched(MQTTConnectionSettings(host: "no-such-host.invalid", port: 1883, clientID: "x"))
        guard case let .connectFailed(lookup) = try await unresolvable.connect() else { return XCTFail("no such host") }
        XCTAssertEqual(lookup.kind, .unreachable)
        XCTAssertTrue(lookup.message.contains("cannot resolve no-such-host.invalid"), lookup.message)
    }

    func testABrokerKilledMidSessionIsALostConnectionAndFailsWhatWaitsOnIt() async throws {
        let device = try Watched(broker.settings())
        try await device.connected()
        let before = device.connectionEvents.count
        try broker.kill()
        guard case let .connectionLost(failure) = try await device.nextEvent(after: before) else {
            return XCTFail("the connection must be reported lost: \(device.connectionEvents)")
        }
        XCTAssertEqual(failure.kind, .lost, failure.message)
        let publish = await device.connection.publish(MQTTMessage(topic: "x", payload: "y", retain: false))
        guard case .failure(let notConnected) = publish else { return XCTFail("no connection, no publish") }
        XCTAssertEqual(notConnected.kind, .notConnected)

        try broker.start()
        try await device.connected()
    }

    func testABrokerThatAcceptsButNeverAnswersTimesOutAtTheKeepAlive() async throws {
        let silent = try SilentListener()
        let device = try Watched(broker.settings(port: silent.port, keepAlive: 5))
        guard case let .connectFailed(failure) = try await device.connect() else { return XCTFail("no CONNACK ever comes") }
        XCTAssertEqual(failure.kind, .noAnswer)
        XCTAssertTrue(failure.message.contains("did not answer within the keep-alive (5 s)"), failure.message)
    }

    func testAnIdleConnectionWakesItsThreadOnlyForTheKeepAlive() async throws {
        let device = try Watched(broker.settings(keepAlive: 5), threadName: "mqtt-idle")
        try await device.connected()
        try await device.connection.subscribe(["idle/cmd/+"]).get()
        try await waitUntilAsleepInPoll(threadNamed: "mqtt-idle")
        let before = Self.switches(ofThreadNamed: "mqtt-idle")
        // Two keep-alive periods: a ping and its answer in each (a 1 s poll would wake it 10 times).
        try await Task.sleep(for: .seconds(10))
        let woken = Self.switches(ofThreadNamed: "mqtt-idle") - before
        XCTAssertGreaterThanOrEqual(woken, 2, "the keep-alive pings must go out")
        XCTAssertLessThanOrEqual(woken, 6, "the idle connection's thread woke \(woken) times in 10 s")
        XCTAssertEqual(device.connectionEvents, [.connected], "the broker kept the connection")
    }

    /// Voluntary and involuntary context switches of this process's thread named `name`.
    static func switches(ofThreadNamed name: String) -> Int {
        guard let tasks = opendir("/proc/self/task") else { return 0 }
        defer { closedir(tasks) }
        var total = 0
        while let entry = readdir(tasks) {
            var field = entry.pointee.d_name
            let tid = withUnsafeBytes(of: &field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard tid.first?.isNumber == true, procText("/proc/self/task/\(tid)/comm") == name else { continue }
            let status = (try? String(decoding: readRegularFile("/proc/self/task/\(tid)/status").get(), as: UTF8.self)) ?? ""
            for line in status.split(separator: "\n") where line.contains("ctxt_switches") {
                total += Int(line.split(separator: "\t").last.map(String.init) ?? "") ?? 0
            }
        }
        return total
    }
}
