import ComposableCore
import DeviceFeature
import Logging
import ServiceTree
import SystemdNotify

/// What systemd hears from the daemon (`Type=notify`): `READY=1` once the device is up, a one-line
/// `STATUS=` whenever it changes, and `STOPPING=1` first at shutdown. Without `$NOTIFY_SOCKET`
/// (not run by systemd) it only waits for shutdown.
struct SystemdService: Service, CustomStringConvertible {
    let channel: SystemdChannel
    let device: Device
    /// Finishes once the device is up.
    let ready: AsyncStream<Void>
    var description: String { "systemd" }

    func run() async {
        guard let messages = channel.channel else {
            try? await gracefulShutdown()
            return
        }
        await cancelWhenGracefulShutdown {
            for await _ in ready {}
            guard !Task.isCancelled else { return }
            await reportStatus(messages)
        }
        await messages.send([.stopping, .status("stopping")])
    }

    /// `READY=1` with the first status, then a new `STATUS=` whenever the line changes.
    @MainActor
    private func reportStatus(_ messages: NotifyChannel) async {
        var last = device.summary
        messages.send([.ready, .status(last)])
        let (changes, changed) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        // Not while a check-in is being written: the line is worked out on the thread that
        // would otherwise go on to the write (the answer's action brings it up to date).
        device.store.observe { state, _ in if !state.acknowledgementPending { changed.yield() } }
        for await _ in changes {
            let line = device.summary
            guard line != last else { continue }
            last = line
            messages.send([.status(line)])
        }
    }
}

/// `WATCHDOG=1` every half `WatchdogSec=`, sent from the main actor on purpose: the pings prove
/// that it (the feature, the LEDs, the control socket's answers) still runs, so a stalled main loop
/// stops them and systemd restarts the daemon.
struct WatchdogService: Service, CustomStringConvertible {
    let channel: NotifyChannel
    let interval: Duration
    let sleep: @Sendable (Duration) async throws -> Void
    var description: String { "watchdog" }

    func run() async {
        await cancelWhenGracefulShutdown { @MainActor in
            while !Task.isCancelled {
                channel.send([.watchdog])
                do { try await sleep(interval) } catch { return }
            }
        }
    }
}

/// The notification socket, if systemd gave one, and the watchdog interval it asks for.
struct SystemdChannel: Sendable {
    let channel: NotifyChannel?
    let watchdogInterval: Duration?

    init(environment: [String: String], logger: Logger) {
        var notifier: SystemdNotifier?
        do {
            notifier = try SystemdNotifier.fromEnvironment(environment)
        } catch {
            logger.warning("cannot notify systemd (readiness, status, watchdog): \(error)")
        }
        channel = notifier.map { NotifyChannel(notifier: $0, logger: logger) }
        watchdogInterval = notifier == nil ? nil : WatchdogInterval.pingInterval(environment: environment)
    }
}

/// Sends notifications, saying once per run of failures that they fail (a pinging loop must not
/// flood the journal).
@MainActor
final class NotifyChannel: Sendable {
    let notifier: SystemdNotifier
    let logger: Logger
    private var reportedFailure = false

    nonisolated init(notifier: SystemdNotifier, logger: Logger) {
        self.notifier = notifier
        self.logger = logger
    }

    func send(_ messages: [NotifyMessage]) {
        do {
            try notifier.send(messages)
            reportedFailure = false
        } catch {
            if !reportedFailure { logger.warning("systemd notification failed: \(error)") }
            reportedFailure = true
        }
    }
}

/// Tells systemd why start-up failed (`systemctl status` shows it; the journal has the details).
enum SystemdNotifyOnce {
    static func startFailed(_ message: String, environment: [String: String]) {
        _ = try? SystemdNotifier.fromEnvironment(environment)?.send([.status("failed to start: \(message)")])
    }
}
