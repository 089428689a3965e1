rchar: 50543045617
wchar: 13660
syscr: 385833
syscw: 5
read_bytes: 987136
write_bytes: 8192
cancelled_write_bytes: 0
