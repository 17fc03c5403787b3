import LinuxIO
import XCTest

/// The netlink decision (which kernel messages mean "the network may be back") on messages laid
/// out as the kernel sends them, and a real NETLINK_ROUTE socket (no privileges needed).
final class NetworkMonitorTests: XCTestCase {
    private static let newLink: UInt16 = 16, newAddress: UInt16 = 20, deleteAddress: UInt16 = 21
    private static let newRoute: UInt16 = 24, deleteRoute: UInt16 = 25

    /// One netlink message: nlmsghdr (length, type, flags, seq, pid) + payload, padded to 4 bytes.
    private func message(type: UInt16, payload: [UInt8]) -> [UInt8] {
        let length = UInt32(16 + payload.count)
        var bytes: [UInt8] = []
        withUnsafeBytes(of: length) { bytes += $0 }
        withUnsafeBytes(of: type) { bytes += $0 }
        bytes += [0, 0] + [UInt8](repeating: 0, count: 8) + payload
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    /// struct rtmsg + one attribute, as for a route.
    private func route(type: UInt16, destinationLength: UInt8, table: UInt8 = 254, kind: UInt8 = 1) -> [UInt8] {
        message(type: type, payload: [2, destinationLength, 0, 0, table, 4, 0, kind, 0, 0, 0, 0] + [8, 0, 5, 0, 192, 168, 1, 1])
    }

    /// struct ifaddrmsg + one attribute, as for an address.
    private func address(type: UInt16, scope: UInt8) -> [UInt8] {
        message(type: type, payload: [2, 24, 0, scope, 3, 0, 0, 0] + [8, 0, 1, 0, 192, 168, 1, 23])
    }

    func testADefaultRouteInTheMainTableCounts() {
        XCTAssertEqual(RouteMessages.findings(in: route(type: Self.newRoute, destinationLength: 0)), [.defaultRouteAdded])
    }

    func testOtherRoutesRemovalsAndOtherTablesDoNot() {
        XCTAssertEqual(RouteMessages.findings(in: route(type: Self.newRoute, destinationLength: 24)), [], "a subnet route")
        XCTAssertEqual(RouteMessages.findings(in: route(type: Self.deleteRoute, destinationLength: 0)), [], "a removal")
        XCTAssertEqual(RouteMessages.findings(in: route(type: Self.newRoute, destinationLength: 0, table: 255)), [], "local table")
        XCTAssertEqual(RouteMessages.findings(in: route(type: Self.newRoute, destinationLength: 0, kind: 2)), [], "RTN_LOCAL")
    }

    func testAGlobalAddressCountsButLinkAndHostScopedOnesDoNot() {
        XCTAssertEqual(RouteMessages.findings(in: address(type: Self.newAddress, scope: 0)), [.globalAddressAdded])
        XCTAssertEqual(RouteMessages.findings(in: address(type: Self.newAddress, scope: 253)), [], "link-local")
        XCTAssertEqual(RouteMessages.findings(in: address(type: Self.newAddress, scope: 254)), [], "host (loopback)")
        XCTAssertEqual(RouteMessages.findings(in: address(type: Self.deleteAddress, scope: 0)), [], "a removal")
        XCTAssertEqual(RouteMessages.findings(in: message(type: Self.newLink, payload: [UInt8](repeating: 0, count: 16))), [],
                       "a link coming up alone")
    }

    func testSeveralMessagesInOneDatagramAreAllRead() {
        let datagram = address(type: Self.newAddress, scope: 253) + route(type: Self.newRoute, destinationLength: 0)
            + address(type: Self.newAddress, scope: 0)
        XCTAssertEqual(RouteMessages.findings(in: datagram), [.defaultRouteAdded, .globalAddressAdded])
    }

    func testTruncatedAndNonsenseDatagramsEndTheWalkWithoutCrashing() {
        let whole = route(type: Self.newRoute, destinationLength: 0)
        for cut in 0..<whole.count {
            XCTAssertEqual(RouteMessages.findings(in: Array(whole.prefix(cut))), [], "cut at \(cut)")
        }
        var lying = whole
        lying[0] = 200  // claims more bytes than there are
        XCTAssertEqual(RouteMessages.findings(in: lying), [])
        var tiny = whole
        tiny[0] = 4; tiny[1] = 0; tiny[2] = 0; tiny[3] = 0  // shorter than its own header
        XCTAssertEqual(RouteMessages.findings(in: tiny), [])
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let noise = (0..<Int.random(in: 0...96, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = RouteMessages.findings(in: noise)
        }
    }

    func testARealRouteSocketOpensAndStopsCleanly() throws {
        let monitor = try NetworkMonitor.start(onChange: {})
        monitor.stop()
        monitor.stop()  // idempotent
    }
}
