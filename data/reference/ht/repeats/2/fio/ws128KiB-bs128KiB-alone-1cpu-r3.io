rchar: 65070803969
wchar: 13661
syscr: 496670
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
