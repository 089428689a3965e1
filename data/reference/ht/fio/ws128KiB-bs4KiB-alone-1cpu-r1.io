rchar: 15833087064
wchar: 13662
syscr: 3865713
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
