import Glibc
public import MQTTClient

/// One connection made to ask a broker whether it takes this device: connect, authenticate,
/// publish one message and have it acknowledged, disconnect (`lifesignalctl doctor`). Blocks the
/// calling thread, never longer than `timeout`.
public enum MQTTReachability {
    public static func check(_ settings: MQTTConnectionSettings, library: LibMosquitto, publishing message: MQTTMessage,
                             timeout: Duration) -> Result<Void, MQTTFailure> {
        let connection: MQTTConnection
        do {
            connection = try MQTTConnection(settings: settings, library: library, threadName: "mqtt-doctor")
        } catch {
            return .failure(MQTTFailure(.rejected, "cannot start the MQTT connection: \(error)"))
        }
        defer { connection.close() }
        let answer = Answer()
        let task = Task.detached {
            connection.connect(MQTTConnectOptions(will: nil))
            var events = connection.connectionEvents.makeAsyncIterator()
            switch await events.next() {
            case .connected?:
                let published = await connection.publish(message)
                await connection.disconnect()
                answer.put(published)
            case let .connectFailed(failure)?, let .connectionLost(failure)?:
                answer.put(.failure(failure))
            case nil:
                answer.put(.failure(MQTTFailure(.notConnected, "the connection to \(settings.broker) was closed")))
            }
        }
        defer { task.cancel() }
        return answer.take(within: timeout) ?? .failure(MQTTFailure(.noAnswer, "\(settings.broker) did not answer within "
                                                                     + "\(timeout.components.seconds) s"))
    }
}

/// A result handed from the connection's task to the waiting thread (a semaphore with a deadline).
private final class Answer: @unchecked Sendable {
    // @unchecked: `value` is written once before `sem_post` and read after `sem_timedwait`
    // succeeded, which orders the two.
    private var value: Result<Void, MQTTFailure>?
    private var semaphore = sem_t()

    init() { sem_init(&semaphore, 0, 0) }
    deinit { sem_destroy(&semaphore) }

    func put(_ result: Result<Void, MQTTFailure>) {
        value = result
        sem_post(&semaphore)
    }

    func take(within timeout: Duration) -> Result<Void, MQTTFailure>? {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let (seconds, attoseconds) = timeout.components
        deadline.tv_sec += Int(seconds)
        deadline.tv_nsec += Int(attoseconds / 1_000_000_000)
        if deadline.tv_nsec >= 1_000_000_000 {
            deadline.tv_sec += 1
            deadline.tv_nsec -= 1_000_000_000
        }
        while sem_timedwait(&semaphore, &deadline) != 0 {
            if errno != EINTR { return nil }
        }
        return value
    }
}
