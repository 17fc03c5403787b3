import Foundation
import XCTest

/// `lifesignald`'s own command line, parsed by hand, and what the binary links.
final class CommandLineTests: XCTestCase {
    private func run(_ executable: String, _ arguments: [String]) throws -> (code: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = executable.hasPrefix("/") ? URL(fileURLWithPath: executable)
            : DaemonHarness.binaries.appendingPathComponent(executable)
        process.arguments = arguments
        process.environment = DaemonHarness.baseEnvironment(home: NSTemporaryDirectory())
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Standard output first: nm's is megabytes, and nothing here writes much to standard error.
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }

    func testWrongArgumentsExit64AndNameTheArgument() throws {
        let cases: [([String], String)] = [
            (["--bogus"], "unknown option '--bogus'"),
            (["--config"], "--config needs a file name"),
            (["-c", "--check-config"], "-c needs a file name"),
            (["--config="], "--config needs a file name"),
            (["--config", "a.toml", "--config=b.toml"], "--config is given twice"),
            (["stray"], "unexpected argument 'stray'"),
            (["\u{1B}[31mred"], "unexpected argument '\\u001B[31mred'"),
        ]
        for (arguments, message) in cases {
            let result = try run("lifesignald", arguments)
            XCTAssertEqual(result.code, 64, "\(arguments)")
            XCTAssertEqual(result.errors, "lifesignald: \(message) (see lifesignald --help)\n", "\(arguments)")
            XCTAssertEqual(result.output, "", "\(arguments)")
        }
    }

    func testHelpPrintsTheUsageAndExitsZero() throws {
        for flag in ["--help", "-h"] {
            let result = try run("lifesignald", ["--config", "/nonexistent", flag])
            XCTAssertEqual(result.code, 0, result.errors)
            XCTAssertTrue(result.output.hasPrefix("USAGE: lifesignald [--config <file>] [--check-config]"), result.output)
            XCTAssertTrue(result.output.contains("78 configuration error"), result.output)
        }
    }

    func testCheckConfigTakesTheConfigInEitherSpelling() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        for arguments in [["--check-config", "--config", device.configPath], ["--config=\(device.configPath)", "--check-config"],
                          ["-c", device.configPath, "--check-config"]] {
            let result = try run("lifesignald", arguments)
            XCTAssertEqual(result.code, 0, "\(arguments): \(result.errors)")
            XCTAssertEqual(result.output, "\(device.configPath): configuration is valid\n")
        }
    }

    /// The daemon carries no Foundation, no general argument parser, no Regex engine and no QR
    /// code drawing (lifesignalctl pair's alone) (BENCHMARKS.md, "Memory and size"): a dependency
    /// that brings one back fails here, not in a benchmark nobody reads.
    func testTheDaemonLinksNeitherFoundationNorTheArgumentParserNorRegex() throws {
        let binary = DaemonHarness.binaries.appendingPathComponent("lifesignald").path
        let symbols = try run("/usr/bin/nm", [binary])  // undefined ones too: debug builds link the libraries dynamically
        XCTAssertEqual(symbols.code, 0, symbols.errors)
        XCTAssertTrue(symbols.output.contains("Lifesignald"), "nm listed no symbols of the daemon itself")
        for module in ["20FoundationEssentials", "10Foundation", "14ArgumentParser", "17_StringProcessing", "12_RegexParser",
                       "14TerminalQRCode"] {
            let found = symbols.output.split(separator: "\n").filter { $0.contains("$s\(module)") }
            XCTAssertTrue(found.isEmpty, "lifesignald links \(module.drop { $0.isNumber }): \(found.prefix(3))")
        }
    }
}
