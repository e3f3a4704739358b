import Foundation
import Persistible
import Testing

@Suite struct AtomicWriteTests {
    @Test(arguments: Volume.allCases, [true, false])
    func aSymbolicLinkStaysALinkAndItsTargetIsReplaced(on volume: Volume, relative: Bool) throws {
        let directory = try TemporaryDirectory(on: volume)
        let real = directory.url.appendingPathComponent("dotfiles", isDirectory: true)
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: false)
        let target = real.appendingPathComponent("person_data.json")
        try withArchiveDirectory(real) { try sam.saveToFile() }
        let link = directory.file("person_data.json")
        try FileManager.default.createSymbolicLink(
            atPath: link.path, withDestinationPath: relative ? "dotfiles/person_data.json" : target.path
        )
        try withArchiveDirectory(directory.url) {
            try amy.saveToFile()
            try [maame].saveToFile()
            #expect(try Person.loadListFromFile() == [sam, amy, maame])
        }
        let type = try FileManager.default.attributesOfItem(atPath: link.path)[.type] as? FileAttributeType
        #expect(type == .typeSymbolicLink)
        #expect(try withArchiveDirectory(real) { try Person.loadListFromFile() } == [sam, amy, maame])
        // The lock sits beside the real file, so every link to it shares one lock.
        #expect(FileManager.default.fileExists(atPath: target.path + ".lock"))
        #expect(try directory.contents() == ["dotfiles", "person_data.json"])
    }

    @Test func aDanglingSymbolicLinkGetsItsTargetCreated() throws {
        let directory = try TemporaryDirectory()
        let target = directory.file("elsewhere.json")
        try FileManager.default.createSymbolicLink(
            atPath: directory.file("person_data.json").path, withDestinationPath: target.path
        )
        try withArchiveDirectory(directory.url) { try sam.saveToFile() }
        #expect(try Data(contentsOf: target) == storedForm(Person.archiveEncoder.encode(sam)))
    }

    @Test(arguments: Volume.allCases, [0o600, 0o640, 0o604])
    func theFilesModeIsKept(on volume: Volume, mode: Int) throws {
        try inTemporaryDirectory(on: volume) { _ in
            try sam.saveToFile()
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: Person.archiveUrl.path)
            try amy.saveToFile()
            try [maame].saveToFile()
            let attributes = try FileManager.default.attributesOfItem(atPath: Person.archiveUrl.path)
            #expect(attributes[.posixPermissions] as? Int == mode)
            #expect(try Person.loadListFromFile() == [sam, amy, maame])
        }
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a file to another owner"), arguments: Volume.allCases)
    func theFilesOwnerIsKeptWhenRunningAsRoot(on volume: Volume) throws {
        try inTemporaryDirectory(on: volume) { _ in
            try sam.saveToFile()
            #expect(chown(Person.archiveUrl.path, 1234, 5678) == 0)
            try amy.saveToFile()
            var status = stat()
            #expect(stat(Person.archiveUrl.path, &status) == 0)
            #expect(status.st_uid == 1234)
            #expect(status.st_gid == 5678)
        }
    }

    @Test func savesLeaveOnlyTheFileAndItsLock() throws {
        try inTemporaryDirectory { directory in
            for index in 0..<20 { try Note(text: "\(index)").saveToFile() }
            try (20..<40).map { Note(text: "\($0)") }.saveToFile()
            #expect(try directory.contents() == ["Note.json", "Note.json.lock"])
        }
    }

    /// Version 0.1.0 made each temporary under the lock, named after its process and a random part; one that a
    /// killed writer left is abandoned, whoever the process, once the lock is held. The lock file it made is empty.
    @Test func temporariesLeftByRelease010AreRemovedByTheFirstSave() throws {
        try inTemporaryDirectory { directory in
            let left = [
                directory.file(".person_data.json.persistible-\(getppid())-3w5e11264sgsf.tmp"),
                directory.file(".person_data.json.persistible-4194304-0.tmp"),
            ]
            let someoneElses = directory.file(".other.json.persistible-1-jkl.tmp")
            let notATemporary = directory.file(".person_data.json.persistible-notes.tmp")
            for url in left + [someoneElses, notATemporary] {
                try Data("partial".utf8).write(to: url)
            }
            try Data().write(to: directory.file("person_data.json.lock"))

            try sam.saveToFile()

            for url in left { #expect(!FileManager.default.fileExists(atPath: url.path), "\(url.lastPathComponent)") }
            #expect(FileManager.default.fileExists(atPath: someoneElses.path))
            #expect(FileManager.default.fileExists(atPath: notATemporary.path))
            #expect(try Person.loadListFromFile() == [sam])
        }
    }

    @Test(arguments: Volume.allCases)
    func aWriteThatFailsReachesTheCallerAndKeepsTheFile(on volume: Volume) throws {
        let directory = try TemporaryDirectory(on: volume)
        try withArchiveDirectory(directory.url) {
            try (0..<10).map { StressRecord(id: "kept-\($0)") }.saveToFile()
        }
        let before = try Data(contentsOf: directory.file("stress.json"))
        // Room for the old file but not for the new one: write fails with EFBIG, as on a full disk.
        let result = try ChildProcess.run(
            "StressWriter", ["fill", directory.path, "200", "\(before.count + 4096)"]
        )
        #expect(result.status == 1)
        #expect(result.errors.contains("File too large"))
        #expect(result.errors.contains("left as it was"))
        #expect(try Data(contentsOf: directory.file("stress.json")) == before)
        #expect(try directory.contents() == ["stress.json", "stress.json.lock"])
    }

    @Test func aWriteThatFailsOnAFirstSaveLeavesNoFile() throws {
        let directory = try TemporaryDirectory()
        let result = try ChildProcess.run("StressWriter", ["fill", directory.path, "200", "4096"])
        #expect(result.status == 1)
        #expect(result.errors.contains("File too large"))
        #expect(try directory.contents() == ["stress.json.lock"])
    }
}
