import Foundation
import Testing

/// The demo, run as a user runs it.
@Suite struct PersonDemoTests {
    private func demo(_ directory: borrowing TemporaryDirectory, _ arguments: String...) throws
        -> (status: Int32, output: String, errors: String)
    {
        try ChildProcess.run("PersonDemo", ["--directory", directory.path] + arguments)
    }

    @Test func theWalkthroughSavesLoadsAndTellsWhereTheFileIs() throws {
        let directory = try TemporaryDirectory()
        let first = try demo(directory)
        #expect(first.status == 0)
        #expect(first.output.contains("The file holds 3 people: Samuel, Amy, Maame"))
        #expect(first.output.contains(directory.file("person_data.json").path))
        // Run again, the saves change nothing.
        let before = try Data(contentsOf: directory.file("person_data.json"))
        #expect(try demo(directory).status == 0)
        #expect(try Data(contentsOf: directory.file("person_data.json")) == before)
    }

    @Test func listFiltersAndSorts() throws {
        let directory = try TemporaryDirectory()
        _ = try demo(directory)
        #expect(try demo(directory, "add", "Kofi", "40", "Achimota").status == 0)
        #expect(try demo(directory, "list").output == """
            Samuel\t35\tAccra Academy
            Amy\t25\tAccra Girls
            Maame\t25\tAccra High
            Kofi\t40\tAchimota

            """)
        #expect(try demo(directory, "list", "--older-than", "30", "--sort", "name").output
            == "Kofi\t40\tAchimota\nSamuel\t35\tAccra Academy\n")
        #expect(try demo(directory, "list", "--sort", "age").output.split(separator: "\n").map { $0.prefix(4) }
            == ["Amy\t", "Maam", "Samu", "Kofi"])
    }

    @Test func removeDeletesByNameAndSaysWhenNoOneMatches() throws {
        let directory = try TemporaryDirectory()
        _ = try demo(directory)
        #expect(try demo(directory, "remove", "Amy").status == 0)
        let again = try demo(directory, "remove", "Amy")
        #expect(again.status == 1)
        #expect(again.errors.contains("no one named 'Amy'"))
        #expect(try demo(directory, "list").output.contains("Amy") == false)
    }

    /// Birthdays run by several processes at once each add their year: the demo changes the list in one step.
    @Test func birthdaysAtOnceAreEachCounted() throws {
        let directory = try TemporaryDirectory()
        _ = try demo(directory)
        let birthdays = try (0..<4).map { _ in
            try ChildProcess("PersonDemo", ["--directory", directory.path, "birthday", "Samuel"])
        }
        for birthday in birthdays {
            let result = birthday.finish()
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.output.hasPrefix("Happy birthday, Samuel: "))
        }
        #expect(try demo(directory, "list").output.hasPrefix("Samuel\t39\tAccra Academy\n"))
        let nobody = try demo(directory, "birthday", "Nobody")
        #expect(nobody.status == 1)
        #expect(nobody.errors.contains("no one named 'Nobody'"))
    }

    @Test(arguments: [["add", "Kofi"], ["add", "Kofi", "old", "School"], ["list", "--sort", "height"], ["fly"]])
    func badArgumentsPrintUsageAndExitWithTwo(_ arguments: [String]) throws {
        let directory = try TemporaryDirectory()
        let result = try ChildProcess.run("PersonDemo", ["--directory", directory.path] + arguments)
        #expect(result.status == 2)
        #expect(result.errors.contains("usage: PersonDemo"))
        #expect(result.output.isEmpty)
    }

    @Test func aPersistenceErrorIsReportedWithExitOne() throws {
        let directory = try TemporaryDirectory()
        try Data("not json".utf8).write(to: directory.file("person_data.json"))
        let result = try demo(directory, "add", "Kofi", "40", "Achimota")
        #expect(result.status == 1)
        #expect(result.errors.contains("holds neither a Person nor an array of Person values"))
        #expect(try Data(contentsOf: directory.file("person_data.json")) == Data("not json".utf8))
    }

    @Test func addingSomeoneAlreadySavedSaysSo() throws {
        let directory = try TemporaryDirectory()
        _ = try demo(directory)
        let before = try FileVersion(of: directory.file("person_data.json"))
        let again = try demo(directory, "add", "Samuel", "35", "Accra Academy")
        #expect(again.status == 0)
        #expect(again.output == "Samuel is already saved\n")
        #expect(try FileVersion(of: directory.file("person_data.json")) == before)
        #expect(try demo(directory, "add", "Kofi", "40", "Achimota").output == "Saved Kofi.\n")
    }

    @Test func theSortSettingIsKeptAsASingleValueAndUsedByList() throws {
        let directory = try TemporaryDirectory()
        _ = try demo(directory)
        #expect(try demo(directory, "config").output == "sort saved\n")
        #expect(try demo(directory, "config", "sort", "age").output == "sort age\n")
        #expect(try demo(directory, "config", "sort", "name").status == 0)
        #expect(try demo(directory, "config", "sort", "age").status == 0)
        let settings = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.file("settings.json")))
        #expect(settings as? [String: String] == ["sort": "age"])
        #expect(try demo(directory, "list").output.split(separator: "\n").map { $0.prefix(4) }
            == ["Amy\t", "Maam", "Samu"])
        #expect(try demo(directory, "list", "--sort", "saved").output.split(separator: "\n").map { $0.prefix(4) }
            == ["Samu", "Amy\t", "Maam"])
        #expect(try demo(directory, "config", "sort", "height").status == 2)
    }

    @Test func settingsGoToTheConfigurationDirectoryAndPathPrintsBothFiles() throws {
        let home = try TemporaryDirectory()
        let environment = [
            "HOME": home.path, "XDG_DATA_HOME": home.path + "/data", "XDG_CONFIG_HOME": home.path + "/config",
            "PERSISTIBLE_DIRECTORY": "",
        ]
        let configured = try ChildProcess.run("PersonDemo", ["config", "sort", "name"], environment: environment)
        #expect(configured.status == 0, "\(configured.errors)")
        let file = home.path + "/config/PersonDemo/settings.json"
        #expect(FileManager.default.fileExists(atPath: file))
        let path = try ChildProcess.run("PersonDemo", ["path"], environment: environment)
        #expect(path.output == home.path + "/data/PersonDemo/person_data.json\n" + file + "\n")
        // The people's file was not touched: only the settings were written.
        #expect(!FileManager.default.fileExists(atPath: home.path + "/data"))
    }

    @Test func watchPrintsTheListAfterEachChangeUntilInterrupted() throws {
        let directory = try TemporaryDirectory()
        let watcher = try ChildProcess("PersonDemo", ["--directory", directory.path, "watch"])
        let output = OutputCollector(watcher.output)
        let errors = PipeReader(watcher.errors)
        #expect(output.wait(for: "(no one is saved)\n--\n", timeout: 5), "the first state: \(output.received)")

        #expect(try demo(directory, "add", "Kofi", "40", "Achimota").status == 0)
        #expect(output.wait(for: "Kofi\t40\tAchimota\n--\n"), "a save by another process: \(output.received)")
        #expect(try demo(directory, "add", "Ama", "30", "Wesley Girls").status == 0)
        #expect(output.wait(for: "Kofi\t40\tAchimota\nAma\t30\tWesley Girls\n--\n"), "\(output.received)")

        kill(watcher.process.processIdentifier, SIGINT)
        let deadline = Date(timeIntervalSinceNow: 5)
        while watcher.process.isRunning, Date() < deadline {
            usleep(1_000)
        }
        guard !watcher.process.isRunning else {
            watcher.process.terminate()
            Issue.record("watch was still running 5 s after SIGINT")
            return
        }
        #expect(watcher.process.terminationReason == .exit, "SIGINT ends it by returning, not by the signal")
        #expect(watcher.process.terminationStatus == 0)
        #expect(errors.wait().isEmpty)
    }
}
