import Foundation
import TestSupport
import XCTest

/// What a Home Assistant would see on the broker, through Mosquitto's own clients (not the
/// device's libmosquitto wrapper): `mosquitto_sub` records every message on `topics` with its
/// retained flag; `mosquitto_pub` publishes. The subscriber ends with the test, or by itself after
/// ten minutes should the test process die.
final class MQTTWatcher {
    struct Message: Equatable {
        var topic: String
        var payload: String
        var retained: Bool

        /// The payload as a JSON object (nil when it is not one).
        var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) as? [String: Any]
        }
    }

    private let process = Process()
    private let output: URL
    let port: UInt16
    /// A topic of the watcher's own: a message seen there proves the subscriptions are in place.
    private let probeTopic = "watcher-probe/\(UInt32.random(in: 0...UInt32.max))"

    /// Subscribes (QoS 1) and returns once the subscriptions are in place. `session`: a persistent
    /// session under that client id, so messages published while the watcher is away (a broker
    /// restart) are kept for it and delivered, in order, when it is back.
    init(port: UInt16, topics: [String], session: String? = nil, in directory: TemporaryDirectory) throws {
        self.port = port
        output = URL(fileURLWithPath: directory.file("watch-\(UInt32.random(in: 0...UInt32.max)).log"))
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
            throw TestFailure("cannot create the watcher's output file \(output.path)")
        }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        var arguments = ["-h", "127.0.0.1", "-p", "\(port)", "-q", "1", "-F", "%r %t %p", "-W", "600"]
        if let session { arguments += ["-c", "-i", session] }
        process.arguments = arguments + (topics + [probeTopic]).flatMap { ["-t", $0] }
        let log = try FileHandle(forWritingTo: output)
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // mosquitto_sub says nothing once subscribed (and buffers what it would say): a probe
        // message it prints proves it, the broker delivering in order from then on.
        var probes = 0
        try waitUntil("mosquitto_sub is subscribed") {
            if self.lines.contains(where: { $0.contains(" \(self.probeTopic) ") }) { return true }
            probes += 1
            if probes % 10 == 1 { try Self.publish(port: port, topic: self.probeTopic, payload: "probe") }
            return false
        }
    }

    deinit {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    private var lines: [String] {
        ((try? String(contentsOf: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Every message received so far, in order.
    var messages: [Message] {
        lines.compactMap { line in
            guard line.hasPrefix("0 ") || line.hasPrefix("1 ") else { return nil }  // debug lines start with "Client"
            let fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, fields[1] != probeTopic else { return nil }
            return Message(topic: String(fields[1]), payload: String(fields[2]), retained: fields[0] == "1")
        }
    }

    func messages(on topic: String) -> [Message] { messages.filter { $0.topic == topic } }

    /// Polls until `condition` holds (with the watcher's output in the failure).
    func waitUntil(_ what: String, timeout: Duration = .seconds(20), file: StaticString = #filePath, line: UInt = #line,
                   _ condition: () throws -> Bool) throws {
        try waitUntilBlocking(what, timeout: timeout, file: file, line: line,
                              details: { "--- mosquitto_sub ---\n" + self.lines.suffix(40).joined(separator: "\n") }, condition)
    }

    /// Publishes `payload` on `topic` with mosquitto_pub (QoS 1) and waits for it to finish.
    static func publish(port: UInt16, topic: String, payload: String, retain: Bool = false) throws {
        let publisher = Process()
        publisher.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_pub")
        publisher.arguments = ["-h", "127.0.0.1", "-p", "\(port)", "-q", "1", "-t", topic, "-m", payload] + (retain ? ["-r"] : [])
        publisher.standardInput = FileHandle.nullDevice
        try publisher.run()
        publisher.waitUntilExit()
        guard publisher.terminationStatus == 0 else {
            throw HarnessError("mosquitto_pub to \(topic) failed (\(publisher.terminationStatus))")
        }
    }
}

extension DaemonHarness {
    /// A daemon with `[mqtt]` at `port` on 127.0.0.1 as device "e2e", a 5 s keep-alive and quick
    /// reconnection; `extra` adds keys to `[mqtt]`.
    static func mqtt(port: UInt16, keepAlive: String = "5s", extra: String = "", config more: String = "") throws -> DaemonHarness {
        try DaemonHarness(interval: "1h", reminder: "10m", config: """

            [mqtt]
            host = "127.0.0.1"
            port = \(port)
            device_id = "e2e"
            keep_alive = "\(keepAlive)"
            retry_max = "1s"
            \(extra)
            \(more)
            """)
    }

    /// Waits until `status` says the MQTT connection is `state`.
    func waitForMQTT(_ state: String, file: StaticString = #filePath, line: UInt = #line) throws {
        try waitUntil("the MQTT connection is \(state)", file: file, line: line) { try self.status().mqtt?.state == state }
    }
}
