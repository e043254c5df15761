internal import CStrataSystem

// CStrataSystem's calls behind `Sys.openUnnamed` and `Sys.linkDescriptor`.

func system_open_unnamed(_ directory: Int32, _ permissions: mode_t) -> Int32 {
    strata_open_unnamed(directory, permissions)
}

func system_link_descriptor(_ fd: Int32, _ directory: Int32, _ name: UnsafePointer<CChar>) -> Int32 {
    strata_link_descriptor(fd, directory, name)
}
