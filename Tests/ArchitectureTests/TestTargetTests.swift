import Foundation
import XCTest

/// Tests a newcomer can place: every module in Sources/ has one test target named after it,
/// `<Module>Tests`, declared in Package.swift; every test target is named after a module (or the
/// executable it runs); nothing is commented out of the package.
final class TestTargetTests: XCTestCase {
    /// Modules without a test target of their own, and why.
    static let exceptions: [String: String] = [
        // System libraries: C headers, no Swift code. Each is tested through the one Swift module
        // that wraps it (SQLiteDatabase, UplinkLive, GPIOLibgpiod, LinuxIO, SingleThreadExecutor, MQTTLive,
        // TerminalQRCode).
        "CSQLite": "system library", "CCurl": "system library", "CGPIOD": "system library",
        "CLinuxSupport": "system library", "CEventLoopSupport": "system library", "CMosquitto": "system library",
        "CQRencode": "system library",
        // What the test targets share; it is exercised by every one of them.
        "TestSupport": "test support",
        // Thin executables: lifesignald is run by LifesignaldTests; lifesignalctl is OperatorCLI's
        // main (OperatorCLITests, and LifesignaldTests runs it); the dev server and the benchmark
        // are development tools whose parts are DevServer and DeviceRuntime; lifesignal-floor is the
        // benchmark's yardstick (run by scripts/bench).
        "lifesignalctl": "executable", "lifesignal-devserver": "executable", "lifesignal-bench": "executable",
        "lifesignal-floor": "executable, the benchmark's yardstick",
        "lifesignald": "executable, tested as a process by LifesignaldTests",
    ]

    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized

    private func folders(_ name: String) throws -> [String] {
        let folder = root.appendingPathComponent(name)
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { entry in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: folder.appendingPathComponent(entry).path, isDirectory: &isDirectory)
                && isDirectory.boolValue
        }.sorted()
    }

    private func package() throws -> String {
        try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
    }

    /// Names declared in Package.swift with `pattern` (a regular expression with one capture group).
    private func declared(_ pattern: String, in text: String) throws -> Set<String> {
        let expression = try NSRegularExpression(pattern: pattern)
        let range = NSRange(text.startIndex..., in: text)
        return Set(expression.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        })
    }

    /// "lifesignald" → "Lifesignald", "GPIOClient" → "GPIOClient".
    private func testTargetName(_ module: String) -> String {
        module.prefix(1).uppercased() + module.dropFirst() + "Tests"
    }

    func testEveryModuleHasATestTargetNamedAfterIt() throws {
        let tests = Set(try folders("Tests"))
        let modules = try folders("Sources")
        XCTAssertGreaterThan(modules.count, 30, "the scan is looking at the wrong folder: \(root.path)")
        for module in modules where Self.exceptions[module] == nil {
            XCTAssertTrue(tests.contains(testTargetName(module)), "\(module) has no test target \(testTargetName(module))")
        }
    }

    func testEveryTestTargetIsNamedAfterAModuleOrAnExecutableAndIsDeclared() throws {
        let modules = Set(try folders("Sources").map(testTargetName))
        let package = try package()
        let declaredTests = try declared(#"\.tests\("([A-Za-z0-9]+)""#, in: package)
            .union(try declared(#"\.testTarget\(name: "([A-Za-z0-9]+)""#, in: package))
        for target in try folders("Tests") where target != "ArchitectureTests" {
            XCTAssertTrue(modules.contains(target), "\(target) is named after no module in Sources/")
            XCTAssertTrue(declaredTests.contains(target), "\(target) is not declared in Package.swift")
        }
        XCTAssertTrue(declaredTests.contains("ArchitectureTests"))
        XCTAssertFalse(package.contains("/*"), "a block comment in Package.swift: targets commented out?")
    }

    func testTheExceptionsAreStillWhatTheySay() throws {
        let package = try package()
        let systemLibraries = try declared(#"\.systemLibrary\(\s*name: "([A-Za-z0-9]+)""#, in: package)
        let executables = try declared(#"\.executableTarget\(\s*name: "([A-Za-z0-9-]+)""#, in: package)
        let sources = Set(try folders("Sources"))
        for (module, reason) in Self.exceptions {
            XCTAssertTrue(sources.contains(module), "\(module) is listed as an exception but is not in Sources/")
            switch reason {
            case "system library": XCTAssertTrue(systemLibraries.contains(module), "\(module) is not a system library")
            case let reason where reason.hasPrefix("executable"): XCTAssertTrue(executables.contains(module), "\(module) is not an executable")
            default: XCTAssertEqual(module, "TestSupport")
            }
        }
        XCTAssertEqual(systemLibraries, Set(Self.exceptions.filter { $0.value == "system library" }.keys),
                       "every system library is listed with its reason")
    }
}
