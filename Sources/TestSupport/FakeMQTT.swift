public import CheckInModels
public import CheckInStoreClient
public import MQTTClient
import Synchronization

/// A broker as a reducer test drives it: the test says when the connection is up, fails or drops
/// (`emit`) and what arrives (`deliver`); every connect, publish, subscription and disconnect is
/// kept. Publishes succeed unless `failPublishes` says otherwise, or wait while `publishGate` is shut.
/// (The real client against a real broker: MQTTLiveTests.)
public final class FakeMQTTClient: Sendable {
    private struct Record {
        var connects: [MQTTConnectOptions] = []
        var published: [MQTTMessage] = []
        var subscriptions: [[String]] = []
        var disconnects = 0
        var publishFailure: MQTTFailure?
        var subscribeFailure: MQTTFailure?
    }

    private let record = Mutex(Record())
    private let connectionEvents: AsyncStream<MQTTConnectionEvent>
    private let connectionContinuation: AsyncStream<MQTTConnectionEvent>.Continuation
    private let incoming: AsyncStream<MQTTInboundMessage>
    private let incomingContinuation: AsyncStream<MQTTInboundMessage>.Continuation
    public let publishGate = Gate()
    public let broker: String

    public init(broker: String = "mqtt://broker.test:1883") {
        self.broker = broker
        (connectionEvents, connectionContinuation) = AsyncStream.makeStream()
        (incoming, incomingContinuation) = AsyncStream.makeStream()
    }

    public var client: MQTTClient {
        MQTTClient(
            broker: broker,
            connect: { [self] options in record.withLock { $0.connects.append(options) } },
            connectionEvents: { [connectionEvents] in connectionEvents },
            messages: { [incoming] in incoming },
            publish: { [self] message in
                await publishGate.pass()
                return record.withLock { record in
                    if let failure = record.publishFailure { return .failure(failure) }
                    record.published.append(message)
                    return .success(())
                }
            },
            subscribe: { [self] filters in
                record.withLock { record in
                    record.subscriptions.append(filters)
                    return record.subscribeFailure.map { .failure($0) } ?? .success(())
                }
            },
            disconnect: { [self] in record.withLock { $0.disconnects += 1 } })
    }

    /// The client reports this about the connection.
    public func emit(_ event: MQTTConnectionEvent) { connectionContinuation.yield(event) }
    /// This message arrives on a subscription.
    public func deliver(_ message: MQTTInboundMessage) { incomingContinuation.yield(message) }

    public var connects: [MQTTConnectOptions] { record.withLock { $0.connects } }
    public var published: [MQTTMessage] { record.withLock { $0.published } }
    public var subscriptions: [[String]] { record.withLock { $0.subscriptions } }
    public var disconnects: Int { record.withLock { $0.disconnects } }
    public func published(on topic: String) -> [String] { published.filter { $0.topic == topic }.map(\.payload) }
    public func failPublishes(with failure: MQTTFailure?) { record.withLock { $0.publishFailure = failure } }
    public func failSubscriptions(with failure: MQTTFailure?) { record.withLock { $0.subscribeFailure = failure } }
    public func forgetPublished() { record.withLock { $0.published = [] } }
}

/// The events waiting for the broker, in memory (the SQLite queue has its own tests on real files).
public final class FakeDeviceEventQueue: Sendable {
    private let events = Mutex<(pending: [DeviceEvent], appendFailure: StoreFailure?)>(([], nil))

    public init() {}

    public var store: DeviceEventStoreClient {
        DeviceEventStoreClient(append: { [self] event throws(StoreFailure) in
            try events.withLock { events throws(StoreFailure) in
                if let failure = events.appendFailure { throw failure }
                events.pending.append(event)
            }
        })
    }

    public var queue: UploadQueueClient<DeviceEvent> {
        var queue = UploadQueueClient<DeviceEvent>.failing("FakeDeviceEventQueue")
        queue.pending = { [self] limit in events.withLock { Array($0.pending.prefix(limit)) } }
        queue.markUploaded = { [self] ids, _ in
            events.withLock { events in
                let before = events.pending.count
                events.pending.removeAll { ids.contains($0.id) }
                return before - events.pending.count
            }
        }
        queue.depth = { [self] in events.withLock { $0.pending.count } }
        return queue
    }

    public var pending: [DeviceEvent] { events.withLock { $0.pending } }
    public func failAppends(with failure: StoreFailure?) { events.withLock { $0.appendFailure = failure } }
}
