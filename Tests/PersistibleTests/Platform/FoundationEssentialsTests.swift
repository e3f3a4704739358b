import Foundation
import Testing

/// A tool on the package and FoundationEssentials maps no more of Foundation: not the rest of it, nor its ICU data,
/// which cost a command-line call some 3 ms to load.
@Suite struct FoundationEssentialsTests {
    #if os(Linux)
    @Test func aToolOnThePackageAndFoundationEssentialsNeverLoadsFoundation() throws {
        let directory = try TemporaryDirectory()
        let run = try ChildProcess.run("PersistibleEssentialsTool", [directory.url.path])
        #expect(run.status == 0, "\(run.errors)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "loaded one two")
        // The maps were read: the one library of Foundation the tool imports is there.
        #expect(lines.contains("libFoundationEssentials.so"), "\(lines)")
        // Nor Dispatch's Swift library, 0.13 ms more; its C library, which FoundationEssentials uses, is mapped.
        let unused = ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so", "libswiftDispatch.so"]
        for library in unused {
            #expect(!lines.contains(library), "\(library) was mapped: \(lines)")
        }
    }
    #endif
}
