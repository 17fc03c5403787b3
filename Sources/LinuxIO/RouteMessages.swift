/// The few rtnetlink (NETLINK_ROUTE) messages that mean "the network may be back", read from raw
/// bytes in the kernel's layout (`linux/netlink.h`, `linux/rtnetlink.h`; native byte order).
///
/// Only two kinds count: a default route appearing (`RTM_NEWROUTE`, destination length 0, in the
/// main table, unicast) and a global address appearing (`RTM_NEWADDR`, scope universe). A link
/// coming up alone does not: without an address and a route nothing can be reached yet, and those
/// follow within moments when it does. Removals never count.
public enum RouteMessages {
    /// The multicast groups to join: IPv4/IPv6 addresses and routes.
    public static let groups: UInt32 = ipv4Addresses | ipv4Routes | ipv6Addresses | ipv6Routes
    static let ipv4Addresses: UInt32 = 0x10  // RTMGRP_IPV4_IFADDR
    static let ipv4Routes: UInt32 = 0x40  // RTMGRP_IPV4_ROUTE
    static let ipv6Addresses: UInt32 = 0x100  // RTMGRP_IPV6_IFADDR
    static let ipv6Routes: UInt32 = 0x400  // RTMGRP_IPV6_ROUTE

    static let newAddress: UInt16 = 20  // RTM_NEWADDR
    static let newRoute: UInt16 = 24  // RTM_NEWROUTE
    static let headerSize = 16  // struct nlmsghdr
    static let mainTable: UInt8 = 254  // RT_TABLE_MAIN
    static let unicastRoute: UInt8 = 1  // RTN_UNICAST
    static let universeScope: UInt8 = 0  // RT_SCOPE_UNIVERSE

    /// What one datagram from the socket says.
    public enum Finding: Hashable, Sendable {
        case defaultRouteAdded
        case globalAddressAdded
    }

    /// The findings in one datagram (several messages may share it); malformed or truncated
    /// messages end the walk, they never crash it.
    public static func findings(in datagram: [UInt8]) -> [Finding] {
        var findings: [Finding] = []
        var offset = 0
        while offset + headerSize <= datagram.count {
            let length = Int(readUInt32(datagram, at: offset))
            guard length >= headerSize, offset + length <= datagram.count else { break }
            let type = readUInt16(datagram, at: offset + 4)
            let payload = datagram[(offset + headerSize)..<(offset + length)]
            if let finding = finding(type: type, payload: payload) { findings.append(finding) }
            offset += (length + 3) & ~3  // NLMSG_ALIGN
        }
        return findings
    }

    private static func finding(type: UInt16, payload: ArraySlice<UInt8>) -> Finding? {
        let bytes = Array(payload)
        switch type {
        case newRoute where bytes.count >= 12:
            // struct rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type, flags.
            let isDefault = bytes[1] == 0 && bytes[4] == mainTable && bytes[7] == unicastRoute
            return isDefault ? .defaultRouteAdded : nil
        case newAddress where bytes.count >= 8:
            // struct ifaddrmsg: family, prefixlen, flags, scope, index.
            return bytes[3] == universeScope ? .globalAddressAdded : nil
        default:
            return nil
        }
    }

    /// Native byte order, as the kernel writes it.
    private static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
    }

    private static func readUInt16(_ bytes: [UInt8], at offset: Int) -> UInt16 {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt16.self) }
    }
}
