rchar: 35806653422
wchar: 13663
syscr: 2185679
syscw: 5
read_bytes: 69632
write_bytes: 8192
cancelled_write_bytes: 0
