import MQTTClient
import MQTTLive
import Synchronization
import TestSupport
import XCTest

/// A connection and what arrived on it, read by the test as it needs.
final class Watched: Sendable {
    let connection: MQTTConnection
    private let record = Record()
    private let readers: [Task<Void, Never>]

    /// What arrived, in order (filled by the reader tasks).
    private final class Record: Sendable {
        let events = Mutex<[MQTTConnectionEvent]>([])
        let messages = Mutex<[MQTTInboundMessage]>([])
    }

    init(_ settings: MQTTConnectionSettings, threadName: String = "mqtt-test") throws {
        let connection = try MQTTConnection(settings: settings, library: try LibMosquitto.shared(), threadName: threadName)
        self.connection = connection
        let record = self.record
        readers = [
            Task { for await event in connection.connectionEvents { record.events.withLock { $0.append(event) } } },
            Task { for await message in connection.messages { record.messages.withLock { $0.append(message) } } },
        ]
    }

    deinit {
        connection.close()
        for reader in readers { reader.cancel() }
    }

    var connectionEvents: [MQTTConnectionEvent] { record.events.withLock { $0 } }
    var messages: [MQTTInboundMessage] { record.messages.withLock { $0 } }

    func messages(on topic: String) -> [MQTTInboundMessage] { messages.filter { $0.topic == topic } }

    /// Connects and waits for the outcome (the next connection event).
    @discardableResult
    func connect(will: MQTTMessage? = nil, file: StaticString = #filePath, line: UInt = #line) async throws -> MQTTConnectionEvent {
        let before = connectionEvents.count
        connection.connect(MQTTConnectOptions(will: will))
        return try await nextEvent(after: before, file: file, line: line)
    }

    /// Connects and fails the test unless the broker accepts.
    func connected(will: MQTTMessage? = nil, file: StaticString = #filePath, line: UInt = #line) async throws {
        let event = try await connect(will: will, file: file, line: line)
        guard event == .connected else { throw TestFailure("expected to connect, got \(event)") }
    }

    /// Waits for the connection event after the first `count`.
    func nextEvent(after count: Int, timeout: Duration = .seconds(20), file: StaticString = #filePath,
                   line: UInt = #line) async throws -> MQTTConnectionEvent {
        try await waitUntil("a connection event", timeout: timeout, file: file, line: line) { self.connectionEvents.count > count }
        return connectionEvents[count]
    }

    func waitForMessage(on topic: String, count: Int = 1, file: StaticString = #filePath, line: UInt = #line) async throws {
        try await waitUntil("\(count) message(s) on \(topic)", file: file, line: line) { self.messages(on: topic).count >= count }
    }
}

extension MosquittoBroker {
    func settings(port: UInt16? = nil, tls: MQTTConnectionSettings.TLS = .off, username: String? = nil,
                  password: String? = nil, clientID: String = "test-\(UInt32.random(in: 0...UInt32.max))",
                  keepAlive: Int = 60) -> MQTTConnectionSettings {
        MQTTConnectionSettings(host: "127.0.0.1", port: Int(port ?? self.port), tls: tls, username: username,
                               password: password, clientID: clientID, keepAlive: keepAlive)
    }
}
