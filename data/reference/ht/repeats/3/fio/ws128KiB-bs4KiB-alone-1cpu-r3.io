rchar: 21053995978
wchar: 13662
syscr: 5140328
syscw: 5
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
