rchar: 20613803092
wchar: 13656
syscr: 157510
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
