import ControlProtocol
import DevServer
import DeviceAPI
import Foundation
import TestSupport
import XCTest

/// `lifesignalctl notifications` against the real daemon syncing with the reference server.
final class NotificationsEndToEndTests: XCTestCase {
    static let deviceID = "e2e-notifications"
    static let token = "e2e-notifications-token-42"

    private func makeDevice(url: String) throws -> DaemonHarness {
        try DaemonHarness.uplinked(to: url, token: Self.token, for: self)
    }

    private func list(_ device: DaemonHarness, _ arguments: [String] = []) throws -> NotificationsReport {
        try device.decode(NotificationsReport.self, device.ctl(["notifications"] + arguments + ["--json"]))
    }

    private func create(_ server: DevServer, _ type: String, _ title: String) throws -> WireNotification {
        try server.createNotification(NewNotification(type: type, title: title), device: Self.deviceID)
    }

    func testNotificationsArriveAndOperationsReachTheBackendAndTheFilterSurvivesARestart() throws {
        let server = try makeServer(device: Self.deviceID, token: Self.token)
        defer { server.stop() }
        let ping = try create(server, "ping", "Anna pinged you")
        let added = try create(server, "added", "Bob added you as a responder")
        let device = try makeDevice(url: server.baseURL)
        try device.start()

        try device.waitUntil("the backend's notifications are on the device") { try self.list(device).total == 2 }
        var report = try list(device)
        XCTAssertEqual(report.notifications.map(\.id), [added.id, ping.id], "newest first")
        XCTAssertEqual(report.unread, 2)
        XCTAssertNotNil(report.sync?.lastSuccess)
        let text = try device.ctl(["notifications"]).standardOutput
        XCTAssertTrue(text.contains("Anna pinged you") && text.contains(String(ping.id.prefix(8))) && text.contains("(just now)"), text)

        // Mark read by a prefix of the id, as the list shows it: at once on the device, then on the backend.
        let alert = try create(server, "alert", "Carol needs help")
        report = try device.decode(NotificationsReport.self, device.ctl(["notifications", "read", String(ping.id.prefix(8)), "--json"]))
        XCTAssertEqual(report.notifications.first { $0.id == ping.id }?.isRead, true)
        try device.waitUntil("the backend has the read mark") {
            try server.notifications(device: Self.deviceID).first { $0.id == ping.id }?.isRead == true
        }
        // The sync that pushed it also fetched what the backend had meanwhile.
        try device.waitUntil("the new alert is on the device") { try self.list(device).notifications.contains { $0.id == alert.id } }

        _ = try device.decode(NotificationsReport.self, device.ctl(["notifications", "clear", added.id, "--json"]))
        try device.waitUntil("the backend has the clear") {
            try server.notifications(device: Self.deviceID).first { $0.id == added.id }?.cleared == true
        }
        try device.waitUntil("the change is no longer pending") { try self.list(device).pendingChanges == 0 }

        // An unknown id is refused with exit 1; a bad type with 64.
        let unknown = try device.ctl(["notifications", "read", "no-such-id"])
        XCTAssertEqual(unknown.exitCode, 1)
        XCTAssertTrue(unknown.standardError.contains("no notification with id no-such-id"), unknown.standardError)
        XCTAssertEqual(try device.ctl(["notifications", "--type", "weather"]).exitCode, 64)

        // The filter is remembered, across a restart too.
        report = try list(device, ["--type", "alert", "--unread-only"])
        XCTAssertEqual(report.filter, "alert")
        XCTAssertTrue(report.unreadOnly)
        XCTAssertEqual(report.notifications.map(\.id), [alert.id])
        XCTAssertEqual(device.stop(), 0)
        try device.start()
        try device.waitUntil("the notifications are loaded again") { try self.list(device).total == 2 }
        report = try list(device)
        XCTAssertEqual(report.filter, "alert")
        XCTAssertTrue(report.unreadOnly)
        XCTAssertEqual(report.notifications.map(\.id), [alert.id])

        // Mark all read and clear all reach the backend too.
        _ = try device.decode(NotificationsReport.self, device.ctl(["notifications", "read-all", "--json"]))
        try device.waitUntil("everything is read on the backend") {
            try server.notifications(device: Self.deviceID).allSatisfy { $0.isRead || $0.cleared == true }
        }
        report = try list(device, ["--all", "--type", "all"])
        XCTAssertEqual(report.unread, 0)
        report = try device.decode(NotificationsReport.self, device.ctl(["notifications", "clear-all", "--json"]))
        XCTAssertEqual(report.total, 0)
        try device.waitUntil("everything is cleared on the backend") {
            try server.notifications(device: Self.deviceID).allSatisfy { $0.cleared == true }
        }
        XCTAssertEqual(server.stats.requestsByOperation["GET /v1/notifications"].map { $0 > 0 }, true)
        XCTAssertEqual(device.stop(), 0)
    }

    func testChangesMadeWhileTheBackendIsDownWaitAndAreSentWhenItAnswersAgain() throws {
        let server = try makeServer(device: Self.deviceID, token: Self.token)
        defer { server.stop() }
        let ping = try create(server, "ping", "Anna pinged you")
        let device = try makeDevice(url: server.baseURL)
        try device.start()
        try device.waitUntil("the notification is on the device") { try self.list(device).total == 1 }

        server.inject(FaultUpdate(errorRate: 1, errorStatus: 503))
        _ = try device.decode(NotificationsReport.self, device.ctl(["notifications", "read", ping.id, "--json"]))
        try device.waitUntil("the sync has failed") { try self.list(device).sync?.lastFailure != nil }
        var report = try list(device)
        XCTAssertEqual(report.pendingChanges, 1)
        XCTAssertEqual(report.notifications.first?.isRead, true, "applied on the device regardless")
        XCTAssertEqual(try server.notifications(device: Self.deviceID).first?.isRead, false)
        let text = try device.ctl(["notifications"]).standardOutput
        XCTAssertTrue(text.contains("1 change waiting") && text.contains("failing"), text)

        server.inject(FaultUpdate(clear: true))
        try device.waitUntil("the change reaches the backend after the retry", timeout: 30) {
            try server.notifications(device: Self.deviceID).first?.isRead == true
        }
        try device.waitUntil("nothing is pending") { try self.list(device).pendingChanges == 0 }
        report = try list(device)
        XCTAssertNil(report.sync?.lastFailure)
        XCTAssertEqual(device.stop(), 0)
    }
}
