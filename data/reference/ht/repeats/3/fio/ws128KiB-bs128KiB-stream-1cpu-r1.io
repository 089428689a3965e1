rchar: 89349491151
wchar: 5986
syscr: 681872
syscw: 3
read_bytes: 0
write_bytes: 49152
cancelled_write_bytes: 0
