import Foundation
import XCTest

/// Each C library enters through one system-library module imported by exactly one Swift module,
/// its wrapper: the one place that owns its handles, checks its return codes and turns its errors
/// into the project's. A second importer would be a second copy of that work.
final class CModuleTests: XCTestCase {
    func testEachCModuleHasExactlyOneSwiftImporter() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources").standardized
        let folders = try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
        let cModules = folders.filter { FileManager.default.fileExists(atPath: sources.appendingPathComponent("\($0)/module.modulemap").path) }
        XCTAssertGreaterThanOrEqual(cModules.count, 4, "the scan found too few C modules to be looking at the right folder")
        var importers: [String: Set<String>] = [:]
        for folder in folders where !cModules.contains(folder) {
            let directory = sources.appendingPathComponent(folder)
            guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { continue }
            for case let file as String in enumerator where file.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") {
                    let words = line.split(separator: " ")
                    guard let index = words.firstIndex(of: "import"), index <= 2, words.count > index + 1 else { continue }
                    let imported = String(words[index + 1])
                    if cModules.contains(imported) { importers[imported, default: []].insert(folder) }
                }
            }
        }
        for module in cModules {
            XCTAssertEqual(importers[module]?.count, 1,
                           "\(module) is imported by \(importers[module]?.sorted() ?? []): one Swift wrapper module must own it")
        }
    }
}
