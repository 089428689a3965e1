rchar: 58579332082
wchar: 13667
syscr: 3575613
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
