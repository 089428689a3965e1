rchar: 12575681522
wchar: 13651
syscr: 12213
syscw: 5
read_bytes: 233472
write_bytes: 8192
cancelled_write_bytes: 0
