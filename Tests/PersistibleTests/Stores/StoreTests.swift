import Foundation
import Persistible
import Testing

/// The behaviour every store shares, run against `FileStore` and `MemoryStore` alike.
@Suite struct StoreTests {
    @Test(arguments: StoreKind.allCases)
    func insertAppendsNewRecordsAndReplacesStoredOnesInPlace(kind: StoreKind) throws {
        try kind.withStore { store in
            try store.insert(contentsOf: [alien, up, jaws])
            var edited = up
            edited.title = "Up (2009)"
            try store.insert(edited)
            try store.insert(dune)
            #expect(try store.all() == [alien, edited, jaws, dune])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func updateReplacesAStoredRecordAndRefusesAnAbsentOne(kind: StoreKind) throws {
        try kind.withStore { store in
            try store.insert(contentsOf: [alien, up])
            var cheaper = alien
            cheaper.budget = 1
            try store.update(cheaper)
            #expect(try store.all() == [cheaper, up])
            let error = persistenceError { try store.update(dune) }
            #expect(error?.reason == .recordNotFound(identity: "4"))
            #expect(error?.recoverySuggestion == "Insert the record instead.")
            #expect(try store.all() == [cheaper, up])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func deleteRemovesByIdentityAndIgnoresAnAbsentRecord(kind: StoreKind) throws {
        try kind.withStore { store in
            try store.insert(contentsOf: movies)
            var sameIdentity = jaws
            sameIdentity.title = "another title"
            try store.delete(sameIdentity)
            try store.delete(Movie(id: 99, title: "", rating: .G, budget: 0))
            #expect(try store.all() == [alien, up, dune, heat])
            try store.deleteAll()
            #expect(try store.all().isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func queriesFilterSortAndPage(kind: StoreKind) throws {
        try kind.withStore { store in
            try store.insert(contentsOf: movies)
            func check(_ store: some Store<Movie>) throws {
                #expect(try store.filter(where: \.rating == .PG).result() == [up, jaws])
                #expect(try store.filter(where: \.rating == .PG_13 || \.budget >= 100_000_000).result() == [up, dune])
                #expect(try store.filter(where: \.rating != .R && \.budget < 100_000_000).result() == [jaws])
                #expect(try store.filter(where: !(\.rating == .R)).count() == 3)
                #expect(try store.filter(where: \.budget > 11_000_000 && \.budget <= 165_000_000).result()
                    == [dune, heat])
                let byRatingThenBudget = store.filter(where: \.budget >= 0)
                    .sorted(by: \.rating.rawValue)
                    .sorted(by: \.budget, inOrder: .descending)
                #expect(try byRatingThenBudget.result() == [up, jaws, dune, alien, heat].sorted {
                    ($0.rating.rawValue, -$0.budget) < ($1.rating.rawValue, -$1.budget)
                })
                let byTitle = store.filter(where: \.budget >= 0).sorted(by: \.title)
                #expect(try byTitle.result().map(\.title) == ["Alien", "Dune", "Heat", "Jaws", "Up"])
                #expect(try byTitle.offset(1).limit(2).result().map(\.title) == ["Dune", "Heat"])
                #expect(try byTitle.offset(4).limit(2).result().map(\.title) == ["Up"])
                #expect(try byTitle.offset(9).result().isEmpty)
                #expect(try byTitle.limit(0).result().isEmpty)
                #expect(try byTitle.first() == alien)
                #expect(try store.filter(where: \.title == "Nothing").first() == nil)
                #expect(try store.filter(where: \.rating == .R).offset(1).count() == 1)
                #expect(try store.filter(where: \.budget >= 0).limit(2).count() == 2)
                #expect(try store.filter(where: #Predicate<Movie> { $0.budget < 10_000_000 }).result() == [jaws])
            }
            try check(store)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func synchronizeReportsWhatChangedAndLeavesExactlyTheGivenRecords(kind: StoreKind) throws {
        try kind.withStore { store in
            try store.insert(contentsOf: [alien, up, jaws])
            var retitled = up
            retitled.title = "Up!"
            let result = try store.synchronize(with: [dune, retitled, alien, dune])
            #expect(result.added == [dune])
            #expect(result.updated == [retitled])
            #expect(result.removed == [jaws])
            #expect(try store.all() == [dune, retitled, alien])
            #expect(try store.synchronize(with: [dune, retitled, alien]).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aThrowingWriteBlockChangesNothing(kind: StoreKind) throws {
        struct Abandon: Error {}
        try kind.withStore { store in
            try store.insert(contentsOf: [alien, up])
            #expect(throws: Abandon.self) {
                try store.write { writer in
                    writer.insert(dune)
                    writer.delete(alien)
                    writer.deleteAll()
                    throw Abandon()
                }
            }
            #expect(throws: PersistenceError.self) {
                try store.write { writer in
                    writer.insert(heat)
                    try writer.update(jaws)
                }
            }
            #expect(try store.all() == [alien, up])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aWriteBlockSeesItsOwnChangesAndReturnsItsResult(kind: StoreKind) throws {
        try kind.withStore { store in
            let count = try store.write { writer in
                writer.insert(contentsOf: movies)
                writer.delete(up)
                #expect(writer.contains(jaws))
                #expect(!writer.contains(up))
                return try writer.filter(where: \.rating == .R).count()
            }
            #expect(count == 2)
            let titles = try store.read { reader in reader.all().map(\.title) }
            #expect(titles == ["Alien", "Jaws", "Dune", "Heat"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aChildsChangesReachTheParentOnlyWhenMerged(kind: StoreKind) throws {
        try kind.withStore { store in
            try store.insert(contentsOf: [alien, up, jaws])
            let draft = try store.makeChild()
            var cheaper = up
            cheaper.budget = 1
            try draft.insert(cheaper)
            try draft.delete(jaws)
            try draft.insert(dune)
            #expect(try store.all() == [alien, up, jaws])
            // The parent changes meanwhile: its own edits stay unless the draft changed the same record.
            var renamed = alien
            renamed.title = "Alien (1979)"
            var upRenamed = up
            upRenamed.title = "Up (2009)"
            try store.insert(contentsOf: [renamed, upRenamed, heat])
            try store.merge(draft)
            #expect(try store.all() == [renamed, cheaper, heat, dune])
            // Merged changes are not applied twice, and a discarded draft changes nothing.
            try store.delete(dune)
            try store.merge(draft)
            #expect(try store.all() == [renamed, cheaper, heat])
            let discarded = try store.makeChild()
            try discarded.deleteAll()
            #expect(try store.all() == [renamed, cheaper, heat])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func recordsMoveBetweenStoresInOneWrite(kind: StoreKind) throws {
        try kind.withStore { store in
            let source = MemoryStore(movies)
            try store.insert(heat)
            try store.replaceAll(with: source.all())
            #expect(try store.all() == movies)
            let back = MemoryStore<Movie>()
            try back.replaceAll(with: store.all())
            #expect(try back.all() == movies)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func theAsyncFormsDoWhatTheSynchronousOnesDo(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await store.insert(contentsOf: [alien, up])
            try await store.insert(jaws)
            try await store.update(Movie(id: 2, title: "Up", rating: .G, budget: 1))
            try await store.delete(alien)
            let changes = try await store.synchronize(with: [jaws, dune])
            #expect(changes.added == [dune])
            func check(_ store: some Store<Movie> & Sendable) async throws {
                let inserted = try await store.write { writer in
                    writer.insert(heat)
                    return writer.all().count
                }
                #expect(inserted == 3)
                #expect(try await store.filter(where: \.rating == .R).result() == [heat])
                #expect(try await store.filter(where: \.budget > 0).sorted(by: \.title).first() == dune)
                #expect(try await store.filter(where: \.budget > 0).count() == 3)
                let titles = try await store.read { $0.all().map(\.title) }
                #expect(titles == ["Jaws", "Dune", "Heat"])
            }
            try await check(store)
            try await store.deleteAll()
            #expect(try await store.all().isEmpty)
        }
    }

    @Test func recordsWithoutAnIdentifierAreIdentifiedByTheirWholeValue() throws {
        let store = MemoryStore<Person>()
        try store.insert(contentsOf: [sam, amy, sam])
        let olderSam = Person(name: sam.name, age: 36, school: sam.school)
        try store.insert(olderSam)
        #expect(try store.all() == [sam, amy, olderSam])
        let result = try store.synchronize(with: [amy, Person(name: "Amy", age: 26, school: "Accra Girls")])
        #expect(result.updated.isEmpty)
        #expect(result.removed == [sam, olderSam])
        #expect(result.added.count == 1)
    }

    @Test func queriesReadEveryKindOfKeyPathAndClosure() throws {
        // Stored properties of a struct are read at their offset; nested ones too. Computed properties and the
        // properties of a class have no offset and are read through the key path. A closure sees whole records.
        struct Release: Codable, Hashable, Sendable {
            var year: Int
        }
        struct Film: Codable, Hashable, Sendable {
            var title: String
            var release: Release
        }
        final class Show: Codable, Hashable, Sendable {
            let name: String
            let seasons: Int
            init(name: String, seasons: Int) {
                self.name = name
                self.seasons = seasons
            }
            static func == (lhs: Show, rhs: Show) -> Bool { lhs.name == rhs.name && lhs.seasons == rhs.seasons }
            func hash(into hasher: inout Hasher) {
                hasher.combine(name)
                hasher.combine(seasons)
            }
        }
        let films = [
            Film(title: "Alien", release: Release(year: 1979)),
            Film(title: "Heat", release: Release(year: 1995)),
            Film(title: "Up", release: Release(year: 2009)),
        ]
        let shows = [Show(name: "Taxi", seasons: 5), Show(name: "Lost", seasons: 6), Show(name: "Firefly", seasons: 1)]
        let directory = try TemporaryDirectory()
        func checkFilms(_ store: some Store<Film>) throws {
            #expect(try store.filter(where: \.release.year >= 1990).result().map(\.title) == ["Heat", "Up"])
            #expect(try store.filter(where: \.title.count == 4).result().map(\.title) == ["Heat"])
            #expect(try store.filter(where: StoreFilter { $0.title.hasPrefix("A") || $0.release.year > 2000 })
                .sorted(by: \.release.year, inOrder: .descending).result().map(\.title) == ["Up", "Alien"])
            #expect(try store.filter(where: \.release.year > 0).sorted(by: \.title.count).sorted(by: \.title)
                .result().map(\.title) == ["Up", "Heat", "Alien"])
        }
        func checkShows(_ store: some Store<Show>) throws {
            #expect(try store.filter(where: \.seasons > 1).sorted(by: \.name).result().map(\.name) == ["Lost", "Taxi"])
            #expect(try store.filter(where: \.name != "Taxi").sorted(by: \.seasons).first()?.name == "Firefly")
        }
        let filmFile = FileStore<Film>(url: directory.file("films.json"))
        try filmFile.insert(contentsOf: films)
        try checkFilms(filmFile)
        try checkFilms(MemoryStore(films))
        let showFile = FileStore<Show>(url: directory.file("shows.json"))
        try showFile.insert(contentsOf: shows)
        try checkShows(showFile)
        try checkShows(MemoryStore(shows))
    }
}
