import Foundation
import XCTest

/// Every dependency client has a failing test value, so a test that forgets to override a call it
/// makes fails instead of running on a plausible default.
final class FailingValueTests: XCTestCase {
    func testEveryClientInterfaceHasAFailingValue() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources").standardized
        let interfaceModules = ["DeviceClock", "GPIOClient", "CheckInStoreClient", "UplinkClient", "MQTTClient", "DependentsClient",
                                "RespondersClient", "DeviceFeature"]
        var clients: [String] = []
        for module in interfaceModules {
            let folder = sources.appendingPathComponent(module)
            for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                let declared = text.matches(of: #/public struct (\w+(?:Client|Dependencies|Clients))\b/#).map { String($0.1) }
                // HealthchecksClients only groups optional UplinkClients (nil: not configured).
                for name in declared where name != "HealthchecksClients" {
                    clients.append(name)
                    let hasFailing = text.contains("public static let failing") || text.contains("public static func failing")
                    XCTAssertTrue(hasFailing, "\(module)/\(file): \(name) has no `failing` test value")
                }
            }
        }
        XCTAssertGreaterThanOrEqual(clients.count, 8, "found \(clients): too few to be looking at the right files")
    }
}
