/// How far a save goes to make its data survive a crash of the whole machine.
///
/// Every save is atomic whatever the durability: the file holds either the old contents or the new ones, never a
/// mixture, even if the process is killed in the middle. Durability decides what a power loss or a kernel crash
/// can undo.
public enum Durability: Sendable, Hashable {
    /// The file and its directory are flushed to the disk before a save returns.
    ///
    /// Once `saveToFile()` returns, the value survives a power loss. On Linux this is `fsync` of the new file and
    /// of its directory; on Apple platforms `F_FULLFSYNC`, which also empties the drive's own cache.
    case full

    /// Only the new file's data is flushed, before it replaces the old one; its directory is not.
    ///
    /// A save is still atomic with respect to other processes and to a crash of the process itself, and after a
    /// power loss or kernel crash the file holds a version that was once saved: the latest, or an earlier one when
    /// the rename had not reached the disk (no file at all, if not even the first save had). It never holds a
    /// mixture, nor an empty or zero-filled file where a saved version stood, which is what renaming unflushed
    /// bytes into place would risk. On Linux the data is flushed with `fdatasync`, on Apple platforms with
    /// `F_BARRIERFSYNC`, which orders it before the rename without emptying the drive's cache.
    ///
    /// What it saves against ``full``: the directory's flush, and on Apple platforms the emptying of the drive's
    /// cache; on Linux `fdatasync` rather than `fsync` for the file.
    case noSync
}
