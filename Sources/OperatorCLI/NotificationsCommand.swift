import ArgumentParser
import CheckInModels
import ControlProtocol
import Glibc

/// `lifesignalctl notifications`: the backend's notifications for this user, with the app's operations.
struct Notifications: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The user's notifications (alert, ping, role, added, removed, check-in): list, mark read, clear.",
        discussion: """
            Every operation applies on the device at once, is stored durably and is synced to the backend \
            (changes wait on the device while it is offline). The type filter and --unread-only/--all are \
            remembered by the daemon, also across restarts.

            Exit codes: 0 success; 1 the daemon refused (unknown or ambiguous id, the store could not save \
            the change); 64 bad arguments; 69 the daemon is not reachable.
            """,
        subcommands: [List.self, Read.self, ReadAll.self, Clear.self, ClearAll.self],
        defaultSubcommand: List.self
    )

    enum Shown: String, EnumerableFlag {
        case unreadOnly
        case all

        static func help(for value: Shown) -> ArgumentHelp? {
            switch value {
            case .unreadOnly: "Show only unread notifications from now on (remembered)."
            case .all: "Show read and unread notifications from now on (remembered)."
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the notifications the remembered filter shows, newest first (the default).")
        @OptionGroup var options: CommonOptions
        @Option(name: .long, help: "Show only this type from now on (remembered): all, alert, ping, role, added, removed, check-in.")
        var type: String?
        @Flag var shown: Shown?

        func validate() throws {
            if let type, type.lowercased() != "all", NotificationType(operatorText: type) == nil {
                throw ValidationError("--type must be all, "
                                      + NotificationType.allCases.map(\.operatorText).joined(separator: ", ") + ", not '\(type)'")
            }
        }

        func run() throws {
            let wireType = type.map { $0.lowercased() == "all" ? "all" : NotificationType(operatorText: $0)?.rawValue ?? $0 }
            let request = ControlRequest(.notifications, type: wireType, unreadOnly: shown.map { $0 == .unreadOnly })
            try options.showNotifications(request)
        }
    }

    struct Read: NotificationsOperation {
        static let configuration = CommandConfiguration(abstract: "Mark one notification as read.")
        @OptionGroup var options: CommonOptions
        @Argument(help: "The notification's id, or its first characters as the list shows them.")
        var id: String
        var request: ControlRequest { ControlRequest(.notificationRead, notificationID: id) }
    }

    struct ReadAll: NotificationsOperation {
        static let configuration = CommandConfiguration(commandName: "read-all", abstract: "Mark every notification as read.")
        @OptionGroup var options: CommonOptions
        var request: ControlRequest { ControlRequest(.notificationsReadAll) }
    }

    struct Clear: NotificationsOperation {
        static let configuration = CommandConfiguration(abstract: "Clear (remove) one notification.")
        @OptionGroup var options: CommonOptions
        @Argument(help: "The notification's id, or its first characters as the list shows them.")
        var id: String
        var request: ControlRequest { ControlRequest(.notificationClear, notificationID: id) }
    }

    struct ClearAll: NotificationsOperation {
        static let configuration = CommandConfiguration(commandName: "clear-all", abstract: "Clear every notification.")
        @OptionGroup var options: CommonOptions
        var request: ControlRequest { ControlRequest(.notificationsClearAll) }
    }
}

/// An operation on the notifications: one request, answered with the list.
protocol NotificationsOperation: ParsableCommand {
    var options: CommonOptions { get }
    var request: ControlRequest { get }
}

extension NotificationsOperation {
    func run() throws {
        try options.showNotifications(request)
    }
}

extension CommonOptions {
    /// Sends a request whose answer is the notifications list, and prints it.
    func showNotifications(_ request: ControlRequest) throws {
        guard let report = try send(request).notifications else { throw ExitCode(1) }
        emit(report, text: Formatting.notifications)
    }
}

extension Formatting {
    /// The list as the filter shows it, e.g.
    /// `* 3f2a9c1e  Sun 22 Nov 21:55 (5 min ago)  ping      Anna pinged you`.
    static func notifications(_ report: NotificationsReport) -> String {
        let type = report.filter == "all" ? "all types" : (NotificationType(rawValue: report.filter)?.operatorText ?? report.filter)
        var lines = ["Notifications (\(type), \(report.unreadOnly ? "unread only" : "read and unread")): "
                     + "\(report.notifications.count) shown of \(report.total), \(report.unread) unread"]
        if report.notifications.isEmpty {
            lines.append(report.total == 0 ? "No notifications." : "None match the filter (`--all --type all` shows every one).")
        }
        for item in report.notifications {
            let type = (NotificationType(rawValue: item.type)?.operatorText ?? item.type).padded(to: 8)
            lines.append("\(item.isRead ? " " : "*") \(String(item.id.prefix(8)).padded(to: 8))  \(timeWithAge(item.createdAt))  "
                         + "\(type)  \(item.title)")
            if let body = item.body, !body.isEmpty { lines.append("             \(body)") }
        }
        if !report.notifications.isEmpty { lines.append("(* = unread; read/clear take the id or its first characters)") }
        if let error = report.error { lines.append("Problem: \(error)") }
        lines.append(notificationSync(report))
        return lines.joined(separator: "\n")
    }

    /// "Sun 22 Nov 21:55 (5 min ago)".
    static func timeWithAge(_ iso: String) -> String {
        guard let wall = WallTime(iso8601: iso) else { return iso }
        let age = wall.microsecondsSinceEpoch / 1_000_000 - Int64(time(nil))
        return "\(localTime(iso)) (\(abs(age) < 60 ? "just now" : relative(seconds: age)))"
    }

    static func notificationSync(_ report: NotificationsReport) -> String {
        let waiting = report.pendingChanges == 0 ? "" : " · \(report.pendingChanges) change\(report.pendingChanges == 1 ? "" : "s") waiting to be synced"
        guard let sync = report.sync else { return "Sync: none (offline device; no [uplink])" + waiting }
        var line = "Sync: " + (sync.lastSuccess.map { "last synced \(localTime($0))" } ?? "not synced yet") + waiting
        if let failure = sync.lastFailure {
            line += "\n  failing (\(sync.consecutiveFailures) in a row): \(failure)"
        }
        if let next = sync.nextAttempt { line += "\n  next sync: \(localTime(next))" }
        return line
    }
}
