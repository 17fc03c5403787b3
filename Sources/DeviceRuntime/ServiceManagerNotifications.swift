import Logging
import SystemdNotify

/// What systemd hears from the daemon (`Type=notify`): `READY=1` once the device has started
/// (store open, GPIO lines held, control socket listening), a one-line `STATUS=` whenever it
/// changes, `WATCHDOG=1` every half `WatchdogSec=` from a main-actor task — so a hung main actor
/// stops the pings and systemd restarts the daemon — and `STOPPING=1` when shutdown begins.
///
/// Without `$NOTIFY_SOCKET` (not run by systemd) every method does nothing.
@MainActor
final class ServiceManagerNotifications {
    private let notifier: SystemdNotifier?
    private let watchdogInterval: Duration?
    private let logger: Logger
    private var lastStatus: String?
    private var reportedFailure = false
    private var tasks: [Task<Void, Never>] = []
    private var changes: AsyncStream<Void>.Continuation?

    init(environment: [String: String], logger: Logger) {
        self.logger = logger
        var notifier: SystemdNotifier?
        do {
            notifier = try SystemdNotifier.fromEnvironment(environment)
        } catch {
            logger.warning("cannot notify systemd (readiness, status, watchdog): \(error)")
        }
        self.notifier = notifier
        watchdogInterval = notifier == nil ? nil : WatchdogInterval.pingInterval(environment: environment)
    }

    /// The device is running: tell systemd, then keep the status and the watchdog fresh.
    func deviceStarted(_ device: Device) async {
        guard notifier != nil else { return }
        let line = await statusLine(device)
        lastStatus = line
        send([.ready, .status(line)])

        let (changes, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.changes = continuation
        device.store.observe { _, _ in continuation.yield() }
        tasks.append(Task { [weak self] in
            for await _ in changes { await self?.refreshStatus(device) }
        })
        if let watchdogInterval {
            // A main-actor task on purpose: its pings prove the main actor (feature, LEDs, control
            // handler) still runs. The relative deadline in the status is refreshed with them.
            tasks.append(Task { [weak self, clock = device.clock] in
                while !Task.isCancelled {
                    self?.send([.watchdog])
                    await self?.refreshStatus(device)
                    do { try await clock.sleep(watchdogInterval) } catch { return }
                }
            })
        }
    }

    /// Start-up failed: say why in `systemctl status` (the journal has the details too).
    func startFailed(_ message: String) {
        send([.status("failed to start: \(message)")])
    }

    /// Shutdown begins: no more pings or status updates after this.
    func stopping() {
        changes?.finish()
        for task in tasks { task.cancel() }
        tasks = []
        send([.stopping, .status("stopping")])
    }

    private func refreshStatus(_ device: Device) async {
        let line = await statusLine(device)
        guard line != lastStatus, !tasks.isEmpty else { return }
        lastStatus = line
        send([.status(line)])
    }

    /// Phase, deadline and upload queue in one line, e.g.
    /// "checked in · deadline in 23 h 59 min · upload queue 0".
    private func statusLine(_ device: Device) async -> String {
        let summary = device.summary
        let queue: String
        do {
            queue = "upload queue \(try await device.storeSupervisor.client.pendingUploadCount())"
        } catch {
            queue = "upload queue unknown (\(error.message))"
        }
        return "\(summary) · \(queue)"
    }

    private func send(_ messages: [NotifyMessage]) {
        guard let notifier else { return }
        do {
            try notifier.send(messages)
            reportedFailure = false
        } catch {
            // Say it once per run of failures: a pinging loop must not flood the journal.
            if !reportedFailure { logger.warning("systemd notification failed: \(error)") }
            reportedFailure = true
        }
    }
}
