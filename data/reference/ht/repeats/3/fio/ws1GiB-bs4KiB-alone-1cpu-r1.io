rchar: 15871510993
wchar: 5979
syscr: 3875054
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
