rchar: 20677766131
wchar: 13660
syscr: 157978
syscw: 5
read_bytes: 0
write_bytes: 45056
cancelled_write_bytes: 0
