rchar: 139027393658
wchar: 18981
syscr: 1060933
syscw: 5
read_bytes: 4096
write_bytes: 16384
cancelled_write_bytes: 0
