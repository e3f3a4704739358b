import Foundation

// MARK: - Load

extension Persistible where Self: Codable & Hashable {
    /// Loads the single value the file holds.
    ///
    /// Loading takes no lock and never waits: saves replace the whole file at once, so a load sees one complete
    /// version of it.
    ///
    /// - Throws: ``PersistenceError`` with ``PersistenceError/Reason/fileNotFound`` if nothing has been saved,
    ///   ``PersistenceError/Reason/holdsArray(count:)`` if the file holds an array (use ``loadListFromFile()``),
    ///   ``PersistenceError/Reason/unreadable(codingPath:detail:)`` if it holds neither `Self` nor `[Self]`, and
    ///   ``PersistenceError/Reason/readFailed(operation:errno:)`` if the system refuses to read it.
    public static func loadFromFile() throws -> Self {
        switch try load() {
        case .single(let value):
            return value
        case .array(let values):
            throw try archive().failure(.holdsArray(count: values.count))
        }
    }

    /// Loads every value the file holds, in order: the array, or the single value as an array of one.
    ///
    /// - Throws: ``PersistenceError``, as ``loadFromFile()`` does, except that an array is what it expects.
    public static func loadListFromFile() throws -> [Self] {
        try load().values
    }

    /// Loads what the file holds, a single value or an array.
    ///
    /// ```swift
    /// switch try Person.load() {
    /// case .single(let person): print(person.name)
    /// case .array(let people): print(people.map(\.name))
    /// }
    /// ```
    ///
    /// - Throws: ``PersistenceError``, as ``loadFromFile()`` does.
    public static func load() throws -> PersistenceData<Self> {
        let archive = try archive()
        guard let state = try archive.read() else { throw archive.failure(.fileNotFound) }
        return state.contents
    }

    /// Loads what the file holds and passes it to `completion`, before returning.
    ///
    /// This is the form of ``load()`` that earlier versions offered; `completion` runs once, on the calling
    /// thread.
    ///
    /// - Throws: ``PersistenceError``, as ``loadFromFile()`` does, or what `completion` throws.
    public static func load(completion: (PersistenceData<Self>) throws -> Void) throws {
        try completion(load())
    }
}
