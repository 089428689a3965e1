rchar: 25205606869
wchar: 5979
syscr: 192493
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
