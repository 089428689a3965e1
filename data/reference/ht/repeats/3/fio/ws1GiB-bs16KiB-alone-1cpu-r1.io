rchar: 29220243920
wchar: 5979
syscr: 1783648
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
