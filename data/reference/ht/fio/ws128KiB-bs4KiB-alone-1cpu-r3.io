rchar: 21366406135
wchar: 13663
syscr: 5216601
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
