/// `path` under `directory`, unless it is absolute.
func resolve(_ path: String, in directory: String) -> String {
    path.hasPrefix("/") ? path : directory + "/" + path
}
