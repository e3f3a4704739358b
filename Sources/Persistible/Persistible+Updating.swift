// MARK: - Update

extension Persistible where Self: Codable & Hashable {
    /// Changes the single value the file holds, or `defaultValue` when nothing has been saved yet, and saves the
    /// result in place of it, under the file's lock from the read to the write (see <doc:SettingsAndEditing>).
    ///
    /// Nothing is written if `body` throws or leaves the stored value as it was; when there is no file the result is
    /// written even if it equals `defaultValue`, so that a later version's new default does not undo the choice.
    ///
    /// - Parameters:
    ///   - defaultValue: The value to start from when there is no file, and whose encoding gives the keys a stored
    ///     value lacks, as in ``loadFromFile(default:)``.
    ///   - body: Changes the value.
    /// - Returns: The value the file holds afterwards.
    /// - Throws: ``PersistenceError`` with ``PersistenceError/Reason/holdsArray(count:)`` if the file holds an
    ///   array, or a reason it lists for any write; or what `defaultValue` or `body` throws.
    @discardableResult
    public static func update(
        default defaultValue: @autoclosure () throws -> Self,
        _ body: (inout Self) throws -> Void
    ) throws -> Self {
        try archive().update(default: defaultValue, body)
    }

    /// Changes the values the file holds (none when there is no file, a single value as an array of one) under its
    /// lock, as ``update(default:_:)`` does, and makes it hold the result as an array; nothing is written if `body`
    /// throws or leaves the values as they were (see <doc:SettingsAndEditing#Change-a-list-in-one-step>).
    ///
    /// - Parameter body: Changes the values; what it returns is returned.
    /// - Returns: What `body` returns.
    /// - Throws: ``PersistenceError``, for a reason it lists for any write; or what `body` throws.
    @discardableResult
    public static func updateList<Result>(_ body: (inout [Self]) throws -> Result) throws -> Result {
        try archive().rewrite { contents in
            let stored = contents?.values ?? []
            var values = stored
            let result = try body(&values)
            guard values != stored else { return (nil, result) }
            // Records the file held with one identity are the caller's to keep or resolve, not the rule's to drop.
            let identity = RecordIdentity<Self>()
            let repeated = IdentityIndex(stored, identity: identity).repeated
            return (.array(WritePlan.inOrder(values, identity: identity, except: repeated)), result)
        }
    }

    // MARK: - Overwrite

    /// Makes the file hold exactly this value, as a single value, whatever value or array it held; it writes nothing
    /// when the file holds this value already (see <doc:SettingsAndEditing#Change-settings>, and
    /// <doc:ModelEvolution#What-an-older-version-does-with-a-newer-file> for the keys this type does not know).
    ///
    /// - Throws: ``PersistenceError``, for a reason it lists for any write.
    public func overwriteFile() throws {
        _ = try Self.archive().overwrite(with: .single(self))
    }
}

extension Array where Element: Persistible & Codable & Hashable {
    /// Makes the file hold exactly these values, in order and without duplicates, whatever value or array it held;
    /// an empty array leaves `[]`. It writes as ``Persistible/overwriteFile()`` does, and of several values with one
    /// identity keeps the last where the first stood.
    ///
    /// - Throws: ``PersistenceError``, in the same cases as ``Persistible/overwriteFile()``.
    public func overwriteFile() throws {
        let values = WritePlan.inOrder(self, identity: RecordIdentity<Element>())
        _ = try Element.archive().overwrite(with: .array(values))
    }
}
