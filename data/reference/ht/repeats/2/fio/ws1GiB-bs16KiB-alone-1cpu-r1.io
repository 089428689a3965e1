rchar: 31077493705
wchar: 13664
syscr: 1897032
syscw: 5
read_bytes: 266240
write_bytes: 20480
cancelled_write_bytes: 0
