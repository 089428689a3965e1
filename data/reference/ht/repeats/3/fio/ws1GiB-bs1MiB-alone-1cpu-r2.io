rchar: 27481147860
wchar: 5969
syscr: 26398
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
