rchar: 17879943633
wchar: 5979
syscr: 4365394
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
